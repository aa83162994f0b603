from .model import *
from .data import *
# from .train import *

from .perform import *