from .baseline import *
from .lambd import *
from .compose import *
from .lambd import *
from .pdb import *