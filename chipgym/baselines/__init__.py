"""Baselines for chipgym's trainable envs: policies and trainers."""
