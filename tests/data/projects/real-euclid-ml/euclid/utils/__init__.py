"""Utility helpers for conversion and model persistence."""

from .save import load_model, save_model
from .utils import change_device, to_numpy, to_xp, change_precision
import euclid.utils.utils as Utilities
__all__ = ["change_settings", "load_model", "save_model", "to_numpy", "to_xp"]
