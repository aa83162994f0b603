__docformat__ = "restructuredtext"

from .base_scorer import (
    BaseScorer,
)
from .refusal_scorer.expression_refusal_scorer import (
    ExpressionRefusalScorer,
)
from .refusal_scorer.llama_guard_refusal_scorer import (
    LLamaGuardRefusalScorer,
)

__all__ = [
    "BaseScorer",
    "ExpressionRefusalScorer",
    "LLamaGuardRefusalScorer",
]
