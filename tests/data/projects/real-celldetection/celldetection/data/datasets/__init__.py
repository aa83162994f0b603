from .bbbc039 import *
from .bbbc041 import *
from .generic import *
from .synth import *
