from .loss import LossTracker
from .accuracy import accuracy, top_k_accuracy
from .perplexity import perplexity

__all__ = [
    "LossTracker",
    "accuracy",
    "top_k_accuracy",
    "perplexity",
]

