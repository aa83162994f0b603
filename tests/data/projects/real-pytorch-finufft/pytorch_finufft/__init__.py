"""Pytorch bindings for the FINUFFT Library"""

from . import functional

__all__ = ["functional"]
__version__ = "0.1.0"
