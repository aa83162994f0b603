# LibAUC optimizers
from .pesg import *
from .pdsca import *
from .soap import *
from .sopa import *
from .sopa_s import *
from .sota_s import *
from .song import *
from .sogclr import *
from .isogclr import *
from .midam import *
from .scent import *
from .staco import *

# PyTorch optimizers
from .sgd import *
from .adam import *
from .adamw import *
from .lars import *
