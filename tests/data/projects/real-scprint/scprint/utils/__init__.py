from .get_seq import *
from .sinkhorn import SinkhornDistance
from .utils import *
