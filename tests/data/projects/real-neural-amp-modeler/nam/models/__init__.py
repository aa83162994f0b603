# File: __init__.py
# Created Date: Saturday February 5th 2022
# Author: Steven Atkinson (steven@atkinson.mn)

"""
NAM's neural networks
"""

from . import base  # noqa F401
from . import exportable  # noqa F401
from . import losses  # noqa F401
from ._from_nam import init_from_nam  # noqa F401
from .conv_net import ConvNet  # noqa F401
from .linear import Linear  # noqa F401
from .recurrent import LSTM  # noqa F401
from .wavenet import WaveNet  # noqa F401
