# Ultralytics YOLO 🚀, AGPL-3.0 license

from .predict import PosePredictor
from .train import PoseTrainer
from .val import PoseValidator

__all__ = "PoseTrainer", "PoseValidator", "PosePredictor"
