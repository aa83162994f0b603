from .handlers import *
from .reparameterization_messengers import *

