"""
Pooling imports
"""

from .base import Pooling
from .cls import ClsPooling
from .factory import PoolingFactory
from .mean import MeanPooling
