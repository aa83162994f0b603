"""Utilities of jax."""
