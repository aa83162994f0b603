"""
General utility functions used throughout LLM Compressor.
"""

# ruff: noqa

from .transformers import *
from .dev import *
from .helpers import *
from .dist import *
