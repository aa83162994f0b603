from .utils import *
from .op_counter import count_ops_and_params
from . import benchmark