from ..basics import *
from ..callback.all import *
from .core import *
from .data import *
from .model import *
from .learner import *
