"""
``odak.learn.tools``

Provides necessary definitions for general tools used across the library.

"""

from .matrix import *
from .file import *
from .vector import *
from .function import *
from .transformation import *
from .sample import *
from .loss import *
from .mask import *
from .models import *
from .camera import *
