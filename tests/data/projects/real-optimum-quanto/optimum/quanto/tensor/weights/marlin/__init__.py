from .fp8 import *
from .int4 import *
from .permutations import *
