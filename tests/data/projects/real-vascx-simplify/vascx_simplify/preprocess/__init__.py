"""Preprocessing module - contrast enhancement and transforms."""

from .contrast import FundusContrastEnhance, SimpleFundusEnhance, simple_fundus_enhance
from .transform import VASCXTransform

__all__ = [
    "FundusContrastEnhance",
    "SimpleFundusEnhance",
    "VASCXTransform",
    "simple_fundus_enhance",
]
