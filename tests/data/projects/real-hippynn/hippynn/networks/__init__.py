"""
Composite pytorch modules that represent larger models.
"""

from . import hipnn, hiphop
