from .fast import *
from .differentiable_binarization import *
from .linknet import *