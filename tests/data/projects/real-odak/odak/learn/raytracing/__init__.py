"""
``odak.learn.raytracing``

Provides necessary definitions for geometric optics.
See "General Ray tracing procedure" from G.H. Spencerand M.V.R.K Murty for more theoratical explanation.
"""

from .ray import *
from .mesh import *
from .boundary import *
from .primitives import *
from .detector import *
