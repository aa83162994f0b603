from .mamba_vision import *

from .registry import create_model
