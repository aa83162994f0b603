from .bigvgan import *
from .meldataset import *
