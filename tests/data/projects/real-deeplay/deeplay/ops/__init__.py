from .shape import Flatten, View, Reshape, Squeeze, Unsqueeze, Permute
from .logs import FromLogs
from .attention import *
from .merge import *
