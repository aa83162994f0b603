from .embed import save_embed, save_faiss_index
from .knn import save_knn
from .online import save_online
from .redis import embed2redis, knn2redis, online2redis, tf2redis
from .tfmodel import save_tf

__all__ = [
    "save_knn",
    "save_embed",
    "save_faiss_index",
    "save_online",
    "save_tf",
    "knn2redis",
    "embed2redis",
    "tf2redis",
    "online2redis",
]
