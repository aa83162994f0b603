"""Package version used by build metadata and runtime code."""

__version__ = "1.6.0"
