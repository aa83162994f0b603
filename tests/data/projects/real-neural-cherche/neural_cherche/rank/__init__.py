from .colbert import ColBERT
from .sparse_embed import SparseEmbed

__all__ = ["ColBERT", "SparseEmbed"]
