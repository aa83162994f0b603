__version__ = "1.3.3"

from .config import SaeConfig, SparseCoderConfig, TrainConfig, TranscoderConfig
from .sparse_coder import Sae, SparseCoder
from .trainer import SaeTrainer, Trainer

__all__ = [
    "Sae",
    "SaeConfig",
    "SaeTrainer",
    "SparseCoder",
    "SparseCoderConfig",
    "Trainer",
    "TrainConfig",
    "TranscoderConfig",
]
