from .linear_attention import *
from .srmsnorm import *
