"""Prediction utilities for the NG Dataset."""

__all__ = [
    "combine_samples",
    "convert_prediction",
    "decollate_image_region_data",
    "stitch_prediction",
    "stitch_single_prediction",
]

from .convert_prediction import (
    combine_samples,
    convert_prediction,
    decollate_image_region_data,
)
from .stitch_prediction import stitch_prediction, stitch_single_prediction
