from .recurrent import *
from .attention import *
from .hetero import *
