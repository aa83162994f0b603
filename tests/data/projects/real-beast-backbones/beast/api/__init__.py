"""High-level API for BEAST."""
