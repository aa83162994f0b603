from .core import *
from .torch import *
