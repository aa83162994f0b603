from __future__ import annotations

from .colbert import (
    ColBERTScores,
    colbert_kd_scores,
    colbert_scores,
    colbert_scores_pairwise,
)
from .similarity_functions import SimilarityFunction
from .xtr import XTRKDScores, XTRScores, xtr_kd_scores, xtr_scores

__all__ = [
    "colbert_scores",
    "colbert_scores_pairwise",
    "colbert_kd_scores",
    "ColBERTScores",
    "XTRScores",
    "XTRKDScores",
    "xtr_scores",
    "xtr_kd_scores",
    "SimilarityFunction",
]
