from .function import *
from .algorithms import *
from . import importance