from .datamodule import *
from .tokenizer import *
from .collation import *