from .install import *
from .misc import *
from .strings import *
from .tensor import *
from .importing import *
