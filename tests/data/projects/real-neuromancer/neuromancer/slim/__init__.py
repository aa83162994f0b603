from .linear import *
from .rnn import *