from .base import LateInteractionModel
from .colbert import ColBERT

__all__ = ["LateInteractionModel", "ColBERT"]
