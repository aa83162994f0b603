from .zoo import *
from .lw_detr import *
