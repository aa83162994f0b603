from .snac import SNAC

__version__ = "1.2.1"
