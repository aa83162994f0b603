"""Inference utilities."""

from fujicv.inference.ensemble import EnsemblePredictor  # noqa: F401
from fujicv.inference.predictor import Predictor
from fujicv.inference.tta import TTAPredictor, tta_predict

__all__ = ["Predictor", "TTAPredictor", "tta_predict", "EnsemblePredictor"]
