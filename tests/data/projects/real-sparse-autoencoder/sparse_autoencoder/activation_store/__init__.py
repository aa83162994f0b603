"""Activation Stores."""
