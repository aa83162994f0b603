from .AntiBERTyRunner import AntiBERTyRunner
from .model.AntiBERTy import AntiBERTy
from .utils.get_weights import get_weights

__all__ = ["AntiBERTy", "AntiBERTyRunner", "get_weights"]
