# Ultralytics YOLO 🚀, AGPL-3.0 license

from .model import RTDETR
from .predict import RTDETRPredictor
from .val import RTDETRValidator

__all__ = "RTDETRPredictor", "RTDETRValidator", "RTDETR"
