from .geometry import *
