# Ultralytics YOLO 🚀, AGPL-3.0 license

from .model import SAM
from .predict import Predictor

__all__ = "SAM", "Predictor"  # tuple or list
