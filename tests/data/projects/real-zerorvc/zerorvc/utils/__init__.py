from .data_utils import *
from .mel_processing import *
from .losses import *
