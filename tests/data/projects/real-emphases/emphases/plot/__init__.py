from .core import *
from . import scaling
