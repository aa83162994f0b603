"""
Utility classes and functions for ciffy.

Note: Atom, AtomGroup, and build_atom_group have moved to ciffy.biochemistry.
"""

from .helpers import filter_by_mask, all_equal

__all__ = [
    # Helpers
    "filter_by_mask",
    "all_equal",
]
