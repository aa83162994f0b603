from .load_datasets import *
from .datasets import *
from .ecg_record import *

__all__ = [
    "load_datasets",
    "datasets",
    "ecg_record",
]
