"""
``odak.visualize``

Provides necessary definitions for visualization.

"""

# To get sub-modules.
from .export import *
