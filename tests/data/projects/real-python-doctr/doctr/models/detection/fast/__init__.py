from .pytorch import *
