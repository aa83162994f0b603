from .dicl import *
