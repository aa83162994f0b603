from .fqe import *
