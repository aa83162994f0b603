from .comparison import *
