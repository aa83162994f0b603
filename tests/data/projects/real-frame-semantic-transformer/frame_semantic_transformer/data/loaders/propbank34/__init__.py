from .Propbank34InferenceLoader import Propbank34InferenceLoader
from .Propbank34TrainingLoader import Propbank34TrainingLoader


__all__ = [
    "Propbank34InferenceLoader",
    "Propbank34TrainingLoader",
]
