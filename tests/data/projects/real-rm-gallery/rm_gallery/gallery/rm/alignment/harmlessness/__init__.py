from .detoxification import *
from .safety import *
