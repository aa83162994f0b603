"""
Input/Output operations for molecular structures.
"""

from .loader import load, load_metadata
from .writer import write_cif

__all__ = [
    "load",
    "load_metadata",
    "write_cif",
]
