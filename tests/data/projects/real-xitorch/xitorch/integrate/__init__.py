from xitorch.integrate.quad import *
from xitorch.integrate.solve_ivp import *
from xitorch.integrate.mcquad import *
from xitorch.integrate.squad import *
