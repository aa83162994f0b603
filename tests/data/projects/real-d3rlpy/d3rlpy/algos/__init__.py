from .qlearning import *
from .transformer import *
from .utility import *
