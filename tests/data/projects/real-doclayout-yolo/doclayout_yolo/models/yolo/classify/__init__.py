# Ultralytics YOLO 🚀, AGPL-3.0 license

from doclayout_yolo.models.yolo.classify.predict import ClassificationPredictor
from doclayout_yolo.models.yolo.classify.train import ClassificationTrainer
from doclayout_yolo.models.yolo.classify.val import ClassificationValidator

__all__ = "ClassificationPredictor", "ClassificationTrainer", "ClassificationValidator"
