r"""Config package."""
from .text_embedder import TextEmbedderConfig
from .text_tokenizer import TextTokenizerConfig
from .model import ModelConfig
from .image_embedder import ImageEmbedderConfig, ImageEmbedder

__all__ = classes = [
    'TextEmbedderConfig',
    'TextTokenizerConfig',
    'ModelConfig',
    'ImageEmbedderConfig',
    'ImageEmbedder',
]
