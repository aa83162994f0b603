from .common import *
from .io import *
from .metrics import *
from .registry import *
from .resampling import *
from .viz import *
from .warp import *
