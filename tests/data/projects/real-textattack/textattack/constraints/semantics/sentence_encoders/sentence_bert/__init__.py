"""
sBERT
^^^^^^^
"""

from .sbert import SBERT
