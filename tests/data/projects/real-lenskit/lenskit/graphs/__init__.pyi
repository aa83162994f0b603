from .lightgcn import LightGCNConfig, LightGCNScorer

__all__ = ["LightGCNScorer", "LightGCNConfig"]
