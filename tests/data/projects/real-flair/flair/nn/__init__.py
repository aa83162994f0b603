from .decoder import DeepNCMDecoder, LabelVerbalizerDecoder, PrototypicalDecoder
from .dropout import LockedDropout, WordDropout
from .model import Classifier, DefaultClassifier, Model

__all__ = [
    "LockedDropout",
    "WordDropout",
    "Classifier",
    "DefaultClassifier",
    "Model",
    "PrototypicalDecoder",
    "DeepNCMDecoder",
    "LabelVerbalizerDecoder",
]
