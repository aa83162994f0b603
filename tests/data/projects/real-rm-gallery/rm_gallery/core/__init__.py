from .data import *
