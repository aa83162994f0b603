from .train_colbert import train_colbert
from .train_sparse_embed import train_sparse_embed
from .train_splade import train_splade

__all__ = ["train_colbert", "train_splade", "train_sparse_embed"]
