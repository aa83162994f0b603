"""ProtoTorch Neural Network Module"""

from .activations import *
from .wrappers import *
