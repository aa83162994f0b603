from .layers import *
from .transformer import *
from .vision_transformer import *
