"""Shared utils."""
