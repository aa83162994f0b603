from FlagEmbedding.abc.finetune.embedder import (
    AbsEmbedderDataArguments as DecoderOnlyEmbedderDataArguments,
    AbsEmbedderTrainingArguments as DecoderOnlyEmbedderTrainingArguments,
)

from .arguments import DecoderOnlyEmbedderModelArguments
from .modeling import BiDecoderOnlyEmbedderModel
from .trainer import DecoderOnlyEmbedderTrainer
from .runner import DecoderOnlyEmbedderRunner

__all__ = [
    'DecoderOnlyEmbedderDataArguments',
    'DecoderOnlyEmbedderTrainingArguments',
    'DecoderOnlyEmbedderModelArguments',
    'BiDecoderOnlyEmbedderModel',
    'DecoderOnlyEmbedderTrainer',
    'DecoderOnlyEmbedderRunner',
]
