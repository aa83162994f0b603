from .bciciv_2a import *
from .strokes import *