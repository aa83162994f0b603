from .model import SymNCO
from .policy import SymNCOPolicy
