"""
Module containing all the spectrogram classes
"""

# 0.2.0
from ..librosa_functions import *
from ..utils import *
from .cfp import *
from .cqt import *
from .gammatone import *
from .griffin_lim import *
from .mel import *
from .stft import *
from .vqt import *
