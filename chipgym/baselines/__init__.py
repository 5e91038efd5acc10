"""Agents, policies and trainers that play chipgym's envs (PPO with RLlib: :mod:`chipgym.baselines.ppo`), and
the tools that evaluate them."""
