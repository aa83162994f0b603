from .hybrid import *
from .ring import *
from .ulysses import *
from .globals import set_seq_parallel_pg
from .comm.extract_local import (
    stripe_extract_local,
    basic_extract_local,
    zigzag_extract_local,
    EXTRACT_FUNC_DICT,
)

__version__ = "0.6.4"
