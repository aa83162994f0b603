from .config import DANetConfig
from .danet import DANetBackbone, DANetModel

__all__ = ["DANetConfig", "DANetBackbone", "DANetModel"]
