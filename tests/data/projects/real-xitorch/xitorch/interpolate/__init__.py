from xitorch.interpolate.interp1 import *
