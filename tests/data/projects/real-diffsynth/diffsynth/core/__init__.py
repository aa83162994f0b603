from .attention import *
from .data import *
from .gradient import *
from .quant import *
from .loader import *
from .vram import *
from .device import *
from .offload_training import *
