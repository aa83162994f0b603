"""Feature selection module for ML pipelines."""

__all__ = [
    "base",
    "importance_based",
    "permutation_importance_based",
    "linear_selector",
]
