from . import core
from . import layers
from .core import HourglassVisionTransformer
from .core import HourglassVisionTransformer as HViT
from .core import HourglassDiffusionTransformer
from .core import HourglassDiffusionTransformer as HDiT