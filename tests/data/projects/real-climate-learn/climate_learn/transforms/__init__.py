from .denormalize import Denormalize
from .mask import Mask
from .registry import TRANSFORMS_REGISTRY
