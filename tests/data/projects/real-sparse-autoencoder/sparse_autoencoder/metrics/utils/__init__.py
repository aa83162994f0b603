"""Metric utils."""
