"""Baselines: policies and trainers for chipgym's numeric envs (PPO with RLlib: :mod:`chipgym.baselines.ppo`)."""
