from .run import *
from .config import *