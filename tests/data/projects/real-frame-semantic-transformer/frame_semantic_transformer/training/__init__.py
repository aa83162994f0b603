from .TrainingModelWrapper import TrainingModelWrapper
from .train import train
from .evaluate_model import evaluate_model

__all__ = ["train", "TrainingModelWrapper", "evaluate_model"]
