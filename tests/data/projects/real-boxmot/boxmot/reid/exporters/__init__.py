"""Shared ReID export infrastructure and format-specific backends."""
