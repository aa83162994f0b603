"""Deep-learning model configurations."""

__all__ = ["ArchitectureConfig", "LVAEConfig", "UNetConfig"]

from .architecture_config import ArchitectureConfig
from .lvae_config import LVAEConfig
from .unet_config import UNetConfig
