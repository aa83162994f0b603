from .classification_model import ClassificationModel
from .dpc import PretrainingModelDPC
from .inference import InferenceModel

__all__ = ["ClassificationModel", "PretrainingModelDPC", "InferenceModel"]
