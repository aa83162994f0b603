from .mask import LMInferer
