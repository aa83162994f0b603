from .base import BaseReranker as FlagReranker

__all__ = [
    "FlagReranker",
]
