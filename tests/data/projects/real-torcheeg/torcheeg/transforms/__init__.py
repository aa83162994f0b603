from .base_transform import *
from .any import *
from .label import *
from .numpy import *
from .torch import *
from .hooks import *
from .graph import *