from .list import *
from .network import *
