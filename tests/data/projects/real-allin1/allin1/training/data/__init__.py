from .datasets import *
from .eventconverters import *
