"""MemPalace — Give your AI a memory. No API key required."""

__version__ = "3.2.0"

from .cli import main

__all__ = ["main", "__version__"]
