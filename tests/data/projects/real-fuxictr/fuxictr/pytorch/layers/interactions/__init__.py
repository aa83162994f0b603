from .inner_product import *
from .holographic_interaction import *
from .cross_net import *
from .compressed_interaction_net import *
from .bilinear_interaction import *
from .inner_product import *
from .interaction_machine import *

