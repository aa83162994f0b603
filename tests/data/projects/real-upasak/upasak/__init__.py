from .ui import main

__version__ = "0.1.1"