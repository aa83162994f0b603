from fastembed.sparse.sparse_embedding_base import SparseEmbedding
from fastembed.sparse.sparse_text_embedding import SparseTextEmbedding

__all__ = ["SparseEmbedding", "SparseTextEmbedding"]
