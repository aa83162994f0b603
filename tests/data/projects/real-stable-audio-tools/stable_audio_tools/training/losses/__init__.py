from .losses import *
from .metrics import *
from .semantic import *
from .utils import *
