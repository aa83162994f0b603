"""Unitree Go1 quadruped."""
