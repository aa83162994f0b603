from .eyewear_counter import EyewearCounter
from .postprocess import generate_report
from .classifier import EyewearClassifier
from .detector import YoloDetector, RetinaFaceDetector
from .utils import DummyProgressBar


__all__ = [
    "EyewearCounter",
    "generate_report",
    "EyewearClassifier",
    "YoloDetector",
    "RetinaFaceDetector",
    "DummyProgressBar",
]