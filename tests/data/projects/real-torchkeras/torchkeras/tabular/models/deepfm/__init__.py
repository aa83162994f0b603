from .config import DeepFMConfig
from .deepfm_model import DeepFMModel,DeepFMBackbone

__all__ = ["DeepFMConfig", "DeepFMBackbone", "DeepFMModel"]