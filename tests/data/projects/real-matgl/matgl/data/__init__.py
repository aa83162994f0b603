"""Data manipulation tools."""
