from .common import *
from .segmentation import *
from .wrappers import *
from .mean_std import *
