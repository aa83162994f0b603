__version__ = "2.8.12"

