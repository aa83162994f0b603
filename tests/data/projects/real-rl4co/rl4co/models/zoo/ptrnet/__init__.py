from .model import PointerNetwork
from .policy import PointerNetworkPolicy
