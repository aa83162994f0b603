__version__ = "22.04"
