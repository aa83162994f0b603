"""Single source of truth for the RealtimeTTS package version."""

__version__ = "0.8.10"
