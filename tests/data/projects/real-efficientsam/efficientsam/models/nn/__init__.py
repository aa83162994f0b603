from .act import *
from .norm import *
from .ops import *
