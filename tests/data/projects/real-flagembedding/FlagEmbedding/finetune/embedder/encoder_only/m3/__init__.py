from FlagEmbedding.abc.finetune.embedder import AbsEmbedderDataArguments as EncoderOnlyEmbedderM3DataArguments

from .arguments import EncoderOnlyEmbedderM3ModelArguments, EncoderOnlyEmbedderM3TrainingArguments
from .modeling import EncoderOnlyEmbedderM3Model, EncoderOnlyEmbedderM3ModelForInference
from .trainer import EncoderOnlyEmbedderM3Trainer
from .runner import EncoderOnlyEmbedderM3Runner


__all__ = [
    'EncoderOnlyEmbedderM3ModelArguments',
    'EncoderOnlyEmbedderM3DataArguments',
    'EncoderOnlyEmbedderM3TrainingArguments',
    'EncoderOnlyEmbedderM3Model',
    'EncoderOnlyEmbedderM3ModelForInference',
    'EncoderOnlyEmbedderM3Trainer',
    'EncoderOnlyEmbedderM3Runner',
]
