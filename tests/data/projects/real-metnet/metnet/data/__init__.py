"""Data loading and preprocessing utilities for MetNet."""

from .merge_single_band import merge_086um_band, merge_two_arrays

__all__ = ["merge_two_arrays", "merge_086um_band"]
