"""
``odak.catalog``

Provides a lens catalog to be used with odak.raytracing submodule.

"""

from .lenses import *
from .detectors import *
from .diffusers import *
