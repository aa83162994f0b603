from .layer import *
from .mlp import *
