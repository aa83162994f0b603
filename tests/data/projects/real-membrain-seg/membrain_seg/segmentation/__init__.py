"""empty init."""
