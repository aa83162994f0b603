from .evaluation_args import EvaluationArguments
from .evaluator import RetrievalEvaluator
from .metrics import IRMetrics
from .relevance_evaluator import RelevanceEvaluatorPlus
