from .encoder import NARGNNEncoder
from .policy import NARGNNPolicy
