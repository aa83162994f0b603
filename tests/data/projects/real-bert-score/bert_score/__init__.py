__version__ = "0.3.12"
from .score import *
from .scorer import *
