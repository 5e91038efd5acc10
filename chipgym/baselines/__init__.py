"""Baselines for chipgym's trainable envs: policies and trainers (PPO with RLlib: :mod:`chipgym.baselines.ppo`)."""
