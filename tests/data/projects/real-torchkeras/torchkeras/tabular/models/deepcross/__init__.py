from .config import DeepCrossConfig
from .deepcross_model import DeepCrossModel,DeepCrossBackbone

__all__ = ["DeepCrossConfig", "DeepCrossBackbone", "DeepCrossModel"]