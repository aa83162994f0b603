"""Data keys and collation, conversions, the Hub token, optional imports, I/O, random state, checkpoints, and types."""

__all__ = []
