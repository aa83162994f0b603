from .colbert import ColBERT
from .sparse_embed import SparseEmbed
from .splade import Splade

__all__ = ["ColBERT", "SparseEmbed", "Splade"]
