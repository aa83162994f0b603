from .model import DACT
from .policy import DACTPolicy
