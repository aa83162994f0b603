"""Ephris inference-only API."""

from .predictor import EphrisClassifier

__all__ = ["EphrisClassifier"]
