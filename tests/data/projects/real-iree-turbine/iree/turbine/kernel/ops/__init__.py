from .core import *
from .math import *
from .reduction import *
from .control_flow import *
from .memory import *
from .shape_manipulation import *
