from . import functional
from .functional import *

metric_functions = functional.__all__

__all__ = metric_functions
