from . import spect
from .files import find_fname, from_dir

__all__ = [
    "find_fname",
    "from_dir",
    "spect",
]
