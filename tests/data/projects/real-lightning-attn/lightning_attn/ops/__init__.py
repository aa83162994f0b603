from .lightning_attn_interface import *
from .torch import *
from .triton import *
