from .config import FMConfig
from .fm_model import FMModel,FMBackbone

__all__ = ["FMConfig", "FMBackbone", "FMModel"]