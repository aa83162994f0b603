"""Version number."""

__version__ = "2026.8.11"
