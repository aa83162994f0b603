from ._boundary import *
from ._collision import *
from ._equilibrium import *
