__all__ = ["OptimLP"]
from .optim_low import *
