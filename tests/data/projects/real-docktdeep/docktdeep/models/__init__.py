from .baseline import *
from .stn import *
