from .bcddpm import BCUNet
from .bddpm import BUNet