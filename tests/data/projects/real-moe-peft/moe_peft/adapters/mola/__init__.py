from .config import MolaConfig
from .model import MolaRouterLoss, MolaSparseMoe

__all__ = [
    "MolaConfig",
    "MolaSparseMoe",
    "MolaRouterLoss",
]
