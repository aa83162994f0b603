from .audio_processing import *
from .stft import *
from .tools import *
