__version__ = "2.7.3"
