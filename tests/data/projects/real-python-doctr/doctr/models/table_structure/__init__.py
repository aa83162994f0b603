from .zoo import *
from .tablecenternet import *
