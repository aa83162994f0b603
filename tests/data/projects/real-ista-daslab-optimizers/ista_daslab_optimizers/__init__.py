from .acdc import *
from .micro_adam import *
from .sparse_mfac import *
from .dense_mfac import *
from .fft_low_rank.trion import Trion
from .fft_low_rank.dct_adamw import DCTAdamW
from .dash import *