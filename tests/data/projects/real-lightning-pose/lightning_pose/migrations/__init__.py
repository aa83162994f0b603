"""Data migration utilities for upgrading legacy output directories."""
