"""FOMO point-localization model."""

from .model import FOMO

__all__ = ["FOMO"]
