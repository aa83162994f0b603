r"""Utility package for testing."""
from .decorators import (
    has_package,
    withPackage,
    withCUDA,
    onlyCUDA,
)

__all__ = [
    'has_package',
    'withPackage',
    'withCUDA',
    'onlyCUDA',
]
