"""Agents, policies and trainers that play chipgym's envs, and the tools that evaluate them."""
