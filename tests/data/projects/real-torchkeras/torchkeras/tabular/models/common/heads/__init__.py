from .blocks import LinearHead, MixtureDensityHead
from .config import LinearHeadConfig, MixtureDensityHeadConfig

__all__ = ["LinearHead", "MixtureDensityHead", "LinearHeadConfig", "MixtureDensityHeadConfig"]
