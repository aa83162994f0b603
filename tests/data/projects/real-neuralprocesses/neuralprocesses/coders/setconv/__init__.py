from .density import *
from .identity import *
from .setconv import *
