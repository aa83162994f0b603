__version__ = "0.7"

from .main import main
