from .ensembling import *
from .functional import *
from .tiles import *
from .tiles_3d import *
from .tta import *
