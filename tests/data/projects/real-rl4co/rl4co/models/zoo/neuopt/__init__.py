from .model import NeuOpt
from .policy import NeuOptPolicy
