from .AbsEmbedder import AbsEmbedder
from .AbsReranker import AbsReranker

__all__ = [
    'AbsEmbedder',
    'AbsReranker'
]
