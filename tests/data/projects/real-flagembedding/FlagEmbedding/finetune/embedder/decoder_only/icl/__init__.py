from FlagEmbedding.abc.finetune.embedder import (
    AbsEmbedderTrainingArguments as DecoderOnlyEmbedderICLTrainingArguments,
)

from .arguments import (
    DecoderOnlyEmbedderICLModelArguments,
    DecoderOnlyEmbedderICLDataArguments
)
from .dataset import (
    DecoderOnlyEmbedderICLSameDatasetTrainDataset,
    AbsEmbedderSameDatasetCollator
)
from .modeling import BiDecoderOnlyEmbedderICLModel
from .trainer import DecoderOnlyEmbedderICLTrainer
from .runner import DecoderOnlyEmbedderICLRunner

__all__ = [
    'DecoderOnlyEmbedderICLModelArguments',
    'DecoderOnlyEmbedderICLDataArguments',
    'DecoderOnlyEmbedderICLTrainingArguments',
    'BiDecoderOnlyEmbedderICLModel',
    'DecoderOnlyEmbedderICLTrainer',
    'DecoderOnlyEmbedderICLRunner',
]
