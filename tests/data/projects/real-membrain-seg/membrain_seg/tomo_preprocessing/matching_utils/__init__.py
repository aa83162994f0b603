"""Empty init."""
