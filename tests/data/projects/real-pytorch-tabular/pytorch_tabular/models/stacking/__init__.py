from .config import StackingModelConfig
from .stacking_model import StackingBackbone, StackingModel

__all__ = ["StackingModel", "StackingModelConfig", "StackingBackbone"]
