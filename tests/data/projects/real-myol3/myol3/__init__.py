"""myoL3 — automated L3-level trunk muscle analysis from CT."""
from .pipeline import run

__version__ = "0.1.0"
__all__ = ["run"]
