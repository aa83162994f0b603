from .nn import *
