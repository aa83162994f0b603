from .core import *
from . import mels
from . import loudness
