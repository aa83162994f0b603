from .importance_score_evaluator import DeltaProbImportanceScoreEvaluator
from .rationalizer import AggregateRationalizer
from .stopping_condition_evaluator import TopKStoppingConditionEvaluator
from .token_replacer import UniformTokenReplacer
from .token_sampler import POSTagTokenSampler

__all__ = [
    "DeltaProbImportanceScoreEvaluator",
    "AggregateRationalizer",
    "TopKStoppingConditionEvaluator",
    "UniformTokenReplacer",
    "POSTagTokenSampler",
]
