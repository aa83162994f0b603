from importlib.metadata import version

from texteller.api import *

__version__ = version("texteller")
