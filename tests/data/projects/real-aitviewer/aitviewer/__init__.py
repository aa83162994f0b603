__version__ = "1.14.2"
