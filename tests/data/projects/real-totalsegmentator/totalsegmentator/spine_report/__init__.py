"""Spine report helpers."""
