from .atoms import *
from .loader import *
from .stats import *
from .splitting import *
from .datamodule import *
from .sampler import *
