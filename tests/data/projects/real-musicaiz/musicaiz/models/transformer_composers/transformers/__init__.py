from .gpt import *
from .attention import *
from .layers import *