from .encoder import Encoder
from .timm_encoder import TimmEncoder

__all__ = ["TimmEncoder", "Encoder"]
