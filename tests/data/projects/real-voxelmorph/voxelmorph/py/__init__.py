"""
The `py/` submodule contains python (non-pytorch) implementations of various helper functions.

Modules
-------
generators
    Data generators for medical image registration.
utils
    General-purpuse python utilities for VoxelMorph.
"""

from . import utils
from . import generators

__all__ = ['utils', 'generators']
