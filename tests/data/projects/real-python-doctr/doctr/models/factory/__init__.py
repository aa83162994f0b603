from .hub import *
