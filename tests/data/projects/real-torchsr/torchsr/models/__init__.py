from .edsr import *
from .vdsr import *
from .rdn import *
from .rcan import *
from .direct import *
from .ninasr import *
from .carn import *
from . import utils
