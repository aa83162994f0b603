from .category_embedding_model import CategoryEmbeddingBackbone, CategoryEmbeddingModel
from .config import CategoryEmbeddingModelConfig

__all__ = ["CategoryEmbeddingModel", "CategoryEmbeddingModelConfig", "CategoryEmbeddingBackbone"]
