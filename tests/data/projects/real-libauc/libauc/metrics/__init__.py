from .metrics_k import *
from .metrics import *
