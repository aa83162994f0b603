from .core import *
from .awdlstm import *