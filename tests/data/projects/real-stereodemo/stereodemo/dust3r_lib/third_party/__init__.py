from .dpt_head import DPTHead
from .rope2d import RoPE2D
