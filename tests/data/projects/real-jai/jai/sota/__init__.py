from .activation import *
from .optimizer import *
from .scheduler import *
