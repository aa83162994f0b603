"""
This submodule contains PyTorch operations.
"""
from .commons import *
from .loss import *
from .draw import *
from .boxes import *
from .normalization import *
from .features import *
from .cpn import *
