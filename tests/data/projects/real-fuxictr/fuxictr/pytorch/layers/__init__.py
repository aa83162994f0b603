from .pooling import *
from .embeddings import *
from .activations import *
from .blocks import *
from .interactions import *
from .attentions import *



