from .ase_interface import *
from .batchwise_optimization import *
