from .differentiable_binarization import *
from .linknet import *
from .fast import *
from .zoo import *
