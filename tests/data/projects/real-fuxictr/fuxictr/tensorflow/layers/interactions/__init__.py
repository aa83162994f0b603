from .inner_product import *
from .cross_net import *

