from .pretrained import *
from .coembedding import *
