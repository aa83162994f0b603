from .modeling import CrossEncoderModel
from .runner import EncoderOnlyRerankerRunner
from .trainer import EncoderOnlyRerankerTrainer

__all__ = [
    "CrossEncoderModel",
    "EncoderOnlyRerankerRunner",
    "EncoderOnlyRerankerTrainer"
]
