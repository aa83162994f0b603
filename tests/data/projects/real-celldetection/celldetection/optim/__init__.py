from .lr_scheduler import *
