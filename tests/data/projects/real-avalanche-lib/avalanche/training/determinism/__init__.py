from .cuda_rng import *
from .rng_manager import *
