from . import library
from .kernels import *