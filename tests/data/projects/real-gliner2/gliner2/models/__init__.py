"""Architecture implementations for GLiNER2 (span and boundary)."""
