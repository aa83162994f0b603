"""
``odak.measurement``

Provides necessary definitions for optical metrology related tasks.

"""

# To get sub-modules.
from .image_quality import *
