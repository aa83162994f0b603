from .pooling import *
from .embeddings import *
from .blocks import *
from .interactions import *


