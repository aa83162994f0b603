__version__ = "2.12.1"
