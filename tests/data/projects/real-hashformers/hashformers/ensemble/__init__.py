from hashformers.ensemble.rrf_fusion import (
    ReciprocalRankFusionEnsembler,
    reciprocal_rank_fusion,
)
from hashformers.ensemble.top2_fusion import Top2_Ensembler

__all__ = [
    "ReciprocalRankFusionEnsembler",
    "Top2_Ensembler",
    "reciprocal_rank_fusion",
]
