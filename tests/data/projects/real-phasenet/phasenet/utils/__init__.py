from .postprocess import *
from .visualization import *
# from .station_sampler import *  # not yet implemented