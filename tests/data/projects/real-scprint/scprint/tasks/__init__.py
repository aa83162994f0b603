from .cell_emb import *
from .denoise import *
from .grn import *
