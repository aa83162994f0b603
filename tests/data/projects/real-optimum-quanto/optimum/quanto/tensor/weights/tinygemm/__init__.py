from .packed import *
from .qbits import *
