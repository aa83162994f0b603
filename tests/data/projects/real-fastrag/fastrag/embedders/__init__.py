from fastrag.embedders.ipex_embedder import (
    IPEXSentenceTransformersDocumentEmbedder,
    IPEXSentenceTransformersTextEmbedder,
)

__all__ = [
    "IPEXSentenceTransformersDocumentEmbedder",
    "IPEXSentenceTransformersTextEmbedder",
]
