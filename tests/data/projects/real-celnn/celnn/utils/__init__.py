"""Utility helpers."""

from .array import center_index, is_broadcastable, to_float_array
from .doc import optional_dependency_message

__all__ = [
    "center_index",
    "is_broadcastable",
    "optional_dependency_message",
    "to_float_array",
]
