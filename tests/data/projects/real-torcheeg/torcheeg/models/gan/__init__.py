from .bcgan import *
from .bgan import *
from .eegfusenet import *