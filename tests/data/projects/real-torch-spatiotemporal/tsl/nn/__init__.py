from . import layers, models
from .blocks import decoders, encoders
from .functional import *  # noqa
from .utils import *  # noqa
