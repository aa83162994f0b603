from .bm25 import BM25
from .colbert import ColBERT
from .sparse_embed import SparseEmbed
from .splade import Splade
from .tfidf import TfIdf

__all__ = [
    "ColBERT",
    "SparseEmbed",
    "Splade",
    "TfIdf",
    "BM25",
]
