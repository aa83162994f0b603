from .general import *
from .autoanchor import check_anchor_order
from .torch_utils import *