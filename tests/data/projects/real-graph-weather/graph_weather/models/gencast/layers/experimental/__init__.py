"""Experimental features."""

from .sparse_transformer import SparseTransformer
