import os

__version__ = "1.0.4"
