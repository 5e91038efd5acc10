"""Agents and policies that play chipgym's envs, and the tools that evaluate them."""
