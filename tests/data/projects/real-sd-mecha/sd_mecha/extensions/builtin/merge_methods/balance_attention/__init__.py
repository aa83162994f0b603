from .interface import balance_attention
from . import sdxl_sgm
