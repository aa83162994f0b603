"""
``odak.tools``

Provides necessary definitions for general tools used across the library.

"""

# Import all public modules for easy access.
from .transformation import *
from .vector import *
from .sample import *
from .asset import *
from .file import *
from .matrix import *
from .conversions import *
from .latex import *
from .markdown import *
from .variables import *
