from .blocks import *
from .kernels import *
