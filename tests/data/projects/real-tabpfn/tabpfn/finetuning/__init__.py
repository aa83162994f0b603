#  Copyright (c) Prior Labs GmbH 2026.

"""Single-dataset fine-tuning wrappers for TabPFN models."""

from tabpfn.finetuning.data_util import ClassifierBatch, RegressorBatch
from tabpfn.finetuning.finetuned_base import (
    EvalResult,
    FinetunedTabPFNBase,
    main_process_first,
)
from tabpfn.finetuning.finetuned_classifier import FinetunedTabPFNClassifier
from tabpfn.finetuning.finetuned_regressor import FinetunedTabPFNRegressor
from tabpfn.finetuning.logging import FinetuningLogger, NullLogger, WandbLogger

__all__ = [
    "ClassifierBatch",
    "EvalResult",
    "FinetunedTabPFNBase",
    "FinetunedTabPFNClassifier",
    "FinetunedTabPFNRegressor",
    "FinetuningLogger",
    "NullLogger",
    "RegressorBatch",
    "WandbLogger",
    "main_process_first",
]
