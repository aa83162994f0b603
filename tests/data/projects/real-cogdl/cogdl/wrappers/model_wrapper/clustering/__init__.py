from .agc_mw import AGCModelWrapper
from .daegc_mw import DAEGCModelWrapper
from .gae_mw import GAEModelWrapper
