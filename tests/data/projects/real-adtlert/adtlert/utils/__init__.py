"""Shared utilities for the adtlert package."""

from adtlert.utils.dtypes import FLOAT_DTYPE, INT_DTYPE

__all__ = [
    "FLOAT_DTYPE",
    "INT_DTYPE",
]
