"""Unitree G1 humanoid."""
