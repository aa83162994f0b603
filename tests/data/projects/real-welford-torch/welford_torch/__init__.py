from .welford_torch import *
from .covariance_torch import *
