# Ultralytics YOLO 🚀, AGPL-3.0 license

from doclayout_yolo.models.yolo import classify, detect, obb, pose, segment

from .model import YOLO, YOLOWorld

__all__ = "classify", "segment", "detect", "pose", "obb", "YOLO", "YOLOWorld"
