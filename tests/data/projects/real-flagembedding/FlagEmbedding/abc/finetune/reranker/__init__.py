from .AbsArguments import AbsRerankerDataArguments, AbsRerankerModelArguments, AbsRerankerTrainingArguments
from .AbsDataset import (
    AbsRerankerTrainDataset, AbsRerankerCollator,
    AbsLLMRerankerTrainDataset, AbsLLMRerankerCollator
)
from .AbsModeling import AbsRerankerModel, RerankerOutput
from .AbsTrainer import AbsRerankerTrainer
from .AbsRunner import AbsRerankerRunner

__all__ = [
    "AbsRerankerDataArguments",
    "AbsRerankerModelArguments",
    "AbsRerankerTrainingArguments",
    "AbsRerankerTrainDataset",
    "AbsRerankerCollator",
    "AbsLLMRerankerTrainDataset",
    "AbsLLMRerankerCollator",
    "AbsRerankerModel",
    "RerankerOutput",
    "AbsRerankerTrainer",
    "AbsRerankerRunner",
]
