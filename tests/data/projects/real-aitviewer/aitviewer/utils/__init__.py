from .decorators import *
from .utils import *
