from .misc import *
from .debug import *