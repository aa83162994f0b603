from xitorch.optimize.rootfinder import *
