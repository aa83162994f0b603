from .ease import EASEConfig, EASEScorer
from .item import ItemKNNConfig, ItemKNNScorer
from .user import UserKNNConfig, UserKNNScorer

__all__ = [
    "ItemKNNScorer",
    "ItemKNNConfig",
    "UserKNNScorer",
    "UserKNNConfig",
    "EASEScorer",
    "EASEConfig",
]
