"""Learned tensor operations for graph inference."""
