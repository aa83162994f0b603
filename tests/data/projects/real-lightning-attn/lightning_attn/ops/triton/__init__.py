from .lightning_attn2 import *
from .lightning_attn2_no_decay import lightning_attn2_no_decay
from .srmsnorm import *
