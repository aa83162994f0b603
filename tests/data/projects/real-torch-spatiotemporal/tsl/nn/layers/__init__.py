from . import base, graph_convs, multi, norm, ops, recurrent
from .base import *  # noqa
from .graph_convs import *  # noqa
from .multi import *  # noqa
from .norm import *  # noqa
from .ops import *  # noqa
from .recurrent import *  # noqa

__all__ = [
    'graph_convs',
    'recurrent',
    'norm',
    'multi',
    'base',
    'ops',
]
