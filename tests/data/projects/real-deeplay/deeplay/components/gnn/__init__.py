from .gcn import *
from .mpn import *
from .tpu import *
