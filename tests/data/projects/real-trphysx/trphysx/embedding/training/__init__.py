__all__ = ['AutoDataHandler', 'EmbeddingParser', 'EmbeddingTrainer']

from .enn_args import EmbeddingParser
from .enn_data_handler import AutoDataHandler, EmbeddingDataHandler
from .enn_trainer import EmbeddingTrainer