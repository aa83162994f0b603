"""Shared tensor-product coefficient, layout and runtime utilities."""
