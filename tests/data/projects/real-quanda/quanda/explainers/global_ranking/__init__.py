"""Global ranking for attributions."""

from quanda.explainers.global_ranking.self_influence_ranking import (
    SelfInfluenceRanking,
)

__all__ = [
    "SelfInfluenceRanking",
]
