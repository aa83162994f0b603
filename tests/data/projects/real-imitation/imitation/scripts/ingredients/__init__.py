"""Ingredients for Sacred experiments."""
