"""Implementations of imitation and reward learning algorithms."""
