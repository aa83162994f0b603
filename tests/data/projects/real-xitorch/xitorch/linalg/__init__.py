from xitorch.linalg.solve import *
from xitorch.linalg.symeig import *
