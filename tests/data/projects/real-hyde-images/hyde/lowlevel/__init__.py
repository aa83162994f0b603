from .add_noise import *
from .dct import *
from .dwt3d import *
from .logging import *
from .utils import *
