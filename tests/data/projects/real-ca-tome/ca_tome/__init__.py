from .modifiers import apply_CA_ToMe
from .confs import CacheConf


__all__ = ["apply_CA_ToMe", "CacheConf"]