from .blocks import *
from .ops import *
