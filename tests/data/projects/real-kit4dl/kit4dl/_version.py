"""Kit4DL version."""

__version__ = "2024.5b2"
