from . import dae
from .base_model import SSLBaseModel
from .dae import DenoisingAutoEncoderConfig, DenoisingAutoEncoderModel

__all__ = ["DenoisingAutoEncoderConfig", "DenoisingAutoEncoderModel", "SSLBaseModel", "dae"]
