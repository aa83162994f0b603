from .criterion import *
from .data_augmentation import *
from .registry import FUNCTIONAL_REGISTRY, get_functional
from .scheduler import CosineWarmupScheduler
from .weight_annealers import CosineAnnealer, PolyAnnealer
