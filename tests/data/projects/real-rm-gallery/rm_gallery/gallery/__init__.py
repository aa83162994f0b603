from .data import *
from .rm import *
