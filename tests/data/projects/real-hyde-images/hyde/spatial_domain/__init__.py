from .fast_hyde import *
from .fast_hyin import *
from .l1hymixde import *
