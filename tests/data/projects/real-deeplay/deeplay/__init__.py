import warnings

# temporary imports until we implement our own
from torch.utils.data import DataLoader

# Filter out warnings from lazy torch modules
warnings.filterwarnings("ignore", category=UserWarning, module="torch.nn.modules.lazy")

from .trainer import Trainer
from .meta import ExtendedConstructorMeta
from .module import DeeplayModule
from .list import LayerList, Sequential, Parallel
from .external import *
from .blocks import *
from .components import *
from .applications import *
from .models import *
from . import decorators, activelearning, initializers, callbacks, ops
from .external import Layer
from .ops import Cat  # For backwards compatibility
