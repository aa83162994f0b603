"""Velocity tracking environments for legged robots."""
