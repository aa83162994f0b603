from .checkpoint import *
