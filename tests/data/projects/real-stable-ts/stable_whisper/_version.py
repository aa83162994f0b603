__version__ = "2.19.1"
