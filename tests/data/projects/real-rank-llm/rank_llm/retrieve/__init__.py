from .indices_dict import INDICES
from .pyserini_retriever import PyseriniRetriever, RetrievalMethod
from .retriever import RetrievalMode, Retriever
from .service_retriever import ServiceRetriever
from .topics_dict import TOPICS
from .utils import download_cached_hits

__all__ = [
    "INDICES",
    "TOPICS",
    "RetrievalMethod",
    "PyseriniRetriever",
    "ServiceRetriever",
    "Retriever",
    "RetrievalMode",
    "download_cached_hits",
]
