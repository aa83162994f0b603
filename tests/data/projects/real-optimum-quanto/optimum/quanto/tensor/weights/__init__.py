from .qbits import *
from .qbytes import *
from .quantization import *
