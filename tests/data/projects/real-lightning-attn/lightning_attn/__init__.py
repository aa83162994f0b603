from .ops import *
from .utils import *
