from .logistic_regression import *
from .factorization_machine import *
from .linear import *
from .mlp_block import *
