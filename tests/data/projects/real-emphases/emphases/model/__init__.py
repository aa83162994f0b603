from .core import *
from .layers import Layers

import emphases
