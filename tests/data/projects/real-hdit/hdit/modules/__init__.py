from .supplies import *
from . import models
from . import attention
from . import flags
from . import flops
from . import things
from . import sampling