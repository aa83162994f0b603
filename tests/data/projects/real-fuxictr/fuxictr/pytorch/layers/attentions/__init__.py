from .dot_product_attention import *
from .squeeze_excitation import *
from .target_attention import *

