"""Single-dataset fine-tuning for TabICL."""

from tabicl._finetune.base import FinetunedTabICLBase, ValidationMetrics
from tabicl._finetune.classifier import FinetunedTabICLClassifier
from tabicl._finetune.data import MetaBatch
from tabicl._finetune.logging import FinetuningLogger, NullLogger, WandbLogger
from tabicl._finetune.regressor import FinetunedTabICLRegressor

__all__ = [
    "FinetunedTabICLBase",
    "FinetunedTabICLClassifier",
    "FinetunedTabICLRegressor",
    "FinetuningLogger",
    "MetaBatch",
    "NullLogger",
    "ValidationMetrics",
    "WandbLogger",
]
