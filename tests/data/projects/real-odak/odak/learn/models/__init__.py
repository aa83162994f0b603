"""
``odak.learn.models``

Provides necessary definitions for components used in machine learning and deep learning.

"""

# To get sub-modules.
from .components import *
from .models import *
from .gaussians import *
