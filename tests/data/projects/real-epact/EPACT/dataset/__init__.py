from .data import *
from .batch_converter import *
