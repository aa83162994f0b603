from .common_types import *
from .data import *
from .geometry import *
from .vocabs import *
