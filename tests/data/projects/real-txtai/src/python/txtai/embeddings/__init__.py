"""
Embeddings imports
"""

from .base import Embeddings
from .index import *
from .search import *
