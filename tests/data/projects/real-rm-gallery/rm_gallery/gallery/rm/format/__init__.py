from .format import *
