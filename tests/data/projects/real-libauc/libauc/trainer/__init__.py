from .config import *
from .core import *
from .data import *