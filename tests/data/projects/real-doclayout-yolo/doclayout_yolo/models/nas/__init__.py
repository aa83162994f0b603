# Ultralytics YOLO 🚀, AGPL-3.0 license

from .model import NAS
from .predict import NASPredictor
from .val import NASValidator

__all__ = "NASPredictor", "NASValidator", "NAS"
