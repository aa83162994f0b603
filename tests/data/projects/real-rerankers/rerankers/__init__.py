from rerankers.reranker import Reranker
from rerankers.documents import Document

__all__ = ["Reranker", "Document"]
__version__ = "0.10.0"