from .logistic_regression import *
from .factorization_machine import *
from .mlp_block import *
