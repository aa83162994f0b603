from .modeling import CrossDecoderModel
from .runner import DecoderOnlyRerankerRunner
from .arguments import RerankerModelArguments
from .trainer import DecoderOnlyRerankerTrainer

__all__ = [
    "CrossDecoderModel",
    "DecoderOnlyRerankerRunner",
    "DecoderOnlyRerankerTrainer",
    "RerankerModelArguments",
]
