# functions implemented in this module need the lietensor module
from .checking import *
from .linalg import *
from .geometry import *
from .spline import *
