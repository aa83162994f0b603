"""
Visualization tools for molecular structures.

Provides functions for visualizing per-residue or per-atom values on 3D
molecular structures using ChimeraX, matplotlib, or other backends.
"""

from .defattr import to_defattr
from .chimerax import visualize
from .plots import plot_profile, contact_map
from .alignment import align_values

__all__ = [
    "visualize",
    "to_defattr",
    "plot_profile",
    "contact_map",
    "align_values",
]
