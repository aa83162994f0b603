from .arguments import AbsEvalArgs, AbsEvalModelArgs
from .evaluator import AbsEvaluator
from .data_loader import AbsEvalDataLoader
from .searcher import EvalRetriever, EvalDenseRetriever, EvalReranker
from .runner import AbsEvalRunner


__all__ = [
    "AbsEvalArgs",
    "AbsEvalModelArgs",
    "AbsEvaluator",
    "AbsEvalDataLoader",
    "EvalRetriever",
    "EvalDenseRetriever",
    "EvalReranker",
    "AbsEvalRunner",
]
