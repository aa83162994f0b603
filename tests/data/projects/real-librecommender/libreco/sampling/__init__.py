from .negatives import (
    neg_probs_from_frequency,
    negatives_from_out_batch,
    negatives_from_popular,
    negatives_from_random,
    negatives_from_unconsumed,
    pos_probs_from_frequency,
)
from .random_walks import (
    bipartite_neighbors,
    bipartite_neighbors_with_weights,
    pairs_from_random_walk,
)

__all__ = [
    "bipartite_neighbors",
    "bipartite_neighbors_with_weights",
    "negatives_from_out_batch",
    "negatives_from_popular",
    "negatives_from_random",
    "negatives_from_unconsumed",
    "neg_probs_from_frequency",
    "pairs_from_random_walk",
    "pos_probs_from_frequency",
]
