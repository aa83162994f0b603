__version__ = "1.1.2"
