"""ReID inference backend implementations."""
