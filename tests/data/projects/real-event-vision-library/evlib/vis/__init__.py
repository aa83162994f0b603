"""Visualization module."""
