"""Util funcitons."""

from quanda.utils.functions.correlations import (
    CorrelationFnLiterals,
    correlation_functions,
    kendall_rank_corr,
    spearman_rank_corr,
)
from quanda.utils.functions.similarities import (
    cosine_similarity,
    dot_product_similarity,
)

__all__ = [
    "kendall_rank_corr",
    "spearman_rank_corr",
    "correlation_functions",
    "CorrelationFnLiterals",
    "dot_product_similarity",
    "cosine_similarity",
]
