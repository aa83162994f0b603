from .prior import Batch
from .utils import get_batch_sequence

__all__ = ["Batch", "get_batch_sequence"]
