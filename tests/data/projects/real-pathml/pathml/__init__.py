"""
Copyright 2023, Dana-Farber Cancer Institute and Weill Cornell Medicine
License: GNU GPL 2.0
"""

from . import datasets as ds
from . import inference, ml
from . import preprocessing as pp
from ._logging import PathMLLogger
from ._version import __version__
from .core import *  # noqa: F403
