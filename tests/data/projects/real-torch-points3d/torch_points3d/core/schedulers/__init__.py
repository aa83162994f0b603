from .lr_schedulers import *
from .bn_schedulers import *
