__layer__ = ["BatchNormTT1d", "BatchNormTT2d" "GradedSpikes"]

from .bntt import *
from .graded_spikes import *

# from .slstm import SLSTM
