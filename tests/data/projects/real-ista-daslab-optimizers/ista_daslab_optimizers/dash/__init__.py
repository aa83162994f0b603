from .dash_layerwise import DashLayerwise
from .dash_gpu import DashGpu
from .dash_config import *
from .types import *