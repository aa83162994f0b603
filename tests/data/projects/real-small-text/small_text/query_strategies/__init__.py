from small_text.query_strategies.base import constraints, ClassificationType
from small_text.query_strategies.exceptions import (EmptyPoolException,
                                                    QueryException,
                                                    PoolExhaustedException)
from small_text.query_strategies.coresets import (greedy_coreset,
                                                  GreedyCoreset,
                                                  lightweight_coreset,
                                                  LightweightCoreset)
from small_text.query_strategies.bayesian import BALD
from small_text.query_strategies.multi_label import CategoryVectorInconsistencyAndRanking
from small_text.query_strategies.strategies import (
    QueryStrategy,
    RandomSampling,
    ConfidenceBasedQueryStrategy,
    BreakingTies,
    LeastConfidence,
    PredictionEntropy,
    SubsamplingQueryStrategy,
    EmbeddingBasedQueryStrategy,
    EmbeddingKMeans,
    ContrastiveActiveLearning,
    DiscriminativeActiveLearning,
    SEALS
)
from small_text.query_strategies.subsampling import AnchorSubsampling


__all__ = [
    'constraints',
    'ClassificationType',
    'EmptyPoolException',
    'QueryException',
    'PoolExhaustedException',
    'QueryStrategy',
    'RandomSampling',
    'ConfidenceBasedQueryStrategy',
    'BreakingTies',
    'LeastConfidence',
    'PredictionEntropy',
    'SubsamplingQueryStrategy',
    'EmbeddingBasedQueryStrategy',
    'EmbeddingKMeans',
    'ContrastiveActiveLearning',
    'DiscriminativeActiveLearning',
    'SEALS',
    'greedy_coreset',
    'GreedyCoreset',
    'lightweight_coreset',
    'LightweightCoreset',
    'BALD',
    'CategoryVectorInconsistencyAndRanking',
    'AnchorSubsampling'
]
