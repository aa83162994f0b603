"""N2V pixel manipulation transform."""

from .n2v_manipulate import N2VManipulate

__all__ = [
    "N2VManipulate",
]
