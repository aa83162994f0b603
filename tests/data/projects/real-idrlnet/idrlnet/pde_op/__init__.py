from .equations import *
from .operator import *
