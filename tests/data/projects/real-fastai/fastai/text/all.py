from ..basics import *
from ..callback.all import *
from .core import *
from .data import *
from .models import *
from .learner import *
