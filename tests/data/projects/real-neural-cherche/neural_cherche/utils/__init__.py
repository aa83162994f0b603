from .colbert_scores import colbert_scores
from .dense_scores import dense_scores
from .evaluate import evaluate, get_beir_triples, load_beir
from .freeze import freeze_layers
from .iter import batchify, iter
from .sparse_scores import sparse_scores
from .warnings import duplicates_queries_warning

__all__ = [
    "colbert_scores",
    "dense_scores",
    "freeze_layers",
    "get_beir_triples",
    "pairs_dense_scores",
    "evaluate",
    "load_beir",
    "batchify",
    "iter",
    "sparse_scores",
    "duplicates_queries_warning",
]
