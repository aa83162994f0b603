from .callbacks import *
from .lr_scheduler import *
