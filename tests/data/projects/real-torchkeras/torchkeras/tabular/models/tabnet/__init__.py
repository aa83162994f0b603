from .config import TabNetModelConfig
from .tabnet_model import TabNetBackbone, TabNetModel

__all__ = ["TabNetModel", "TabNetModelConfig", "TabNetBackbone"]
