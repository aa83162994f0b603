__version__ = "1.13.0"
