"""
Data augmentations for OOD detection.
"""

from .img import *
