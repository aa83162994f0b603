from .ccmr import *
