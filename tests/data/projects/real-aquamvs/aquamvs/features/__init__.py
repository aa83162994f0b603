"""Feature extraction and matching for sparse reconstruction."""

from .extraction import (
    create_extractor,
    extract_features,
    extract_features_batch,
    load_features,
    save_features,
)
from .matching import (
    create_matcher,
    load_matches,
    match_all_pairs,
    match_pair,
    save_matches,
)
from .pairs import select_pairs
from .roma import (
    create_roma_matcher,
    match_all_pairs_roma,
    match_pair_roma,
    run_roma_all_pairs,
)

__all__ = [
    "create_extractor",
    "extract_features",
    "extract_features_batch",
    "save_features",
    "load_features",
    "select_pairs",
    "create_matcher",
    "match_pair",
    "match_all_pairs",
    "save_matches",
    "load_matches",
    "create_roma_matcher",
    "match_pair_roma",
    "match_all_pairs_roma",
    "run_roma_all_pairs",
]
