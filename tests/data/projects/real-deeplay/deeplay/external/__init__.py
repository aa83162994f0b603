from .external import External
from .layer import Layer
from .optimizers import *
