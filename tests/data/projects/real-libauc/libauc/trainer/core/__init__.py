from .callbacks import *
from .graph_trainer import *
from .image_trainer import *
