"""Utilities for configuring the package setup."""

from ._optional_dependencies import *

__all__ = [name for name in globals().keys() if not name.startswith("_")]
