from .config import DenoisingAutoEncoderConfig
from .dae import DenoisingAutoEncoderModel

__all__ = ["DenoisingAutoEncoderModel", "DenoisingAutoEncoderConfig"]
