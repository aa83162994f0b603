"""
Audio datasets for OOD detection.
"""

from .fsdd import FSDD
