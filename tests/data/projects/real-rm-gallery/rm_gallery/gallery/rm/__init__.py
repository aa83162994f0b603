from .alignment import *
from .carmo import *
from .code import *
from .format import *
from .general import *
from .math import *
