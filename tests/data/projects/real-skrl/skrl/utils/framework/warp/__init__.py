from .math import *
from .ops import *
