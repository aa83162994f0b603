from ._stencil import *
from ._equilibrium import *
from ._force import *
from ._collision import *
from ._boundary import *
from ._flows import *
from ._reporter import *
