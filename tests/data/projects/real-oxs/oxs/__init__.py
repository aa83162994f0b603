from .layers import Linear
from .optim import SGD
from .utils import manual_seed

__version__ = "0.1.0"
