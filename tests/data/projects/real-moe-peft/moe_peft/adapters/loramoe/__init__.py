from .config import LoraMoeConfig
from .model import LoraMoe

__all__ = [
    "LoraMoeConfig",
    "LoraMoe",
]
