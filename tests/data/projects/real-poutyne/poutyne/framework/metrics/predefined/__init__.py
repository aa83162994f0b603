from .accuracy import *
from .fscores import *
from .sklearn_metrics import *
