"""Source Data."""
