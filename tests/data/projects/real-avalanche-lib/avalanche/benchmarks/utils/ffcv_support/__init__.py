from .ffcv_components import *
