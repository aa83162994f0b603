"""Source Model."""
