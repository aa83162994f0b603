from .recurrent import *
