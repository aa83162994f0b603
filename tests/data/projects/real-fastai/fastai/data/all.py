from ..torch_basics import *
from .core import *
from .load import *
from .external import *
from .transforms import *
from .block import *
