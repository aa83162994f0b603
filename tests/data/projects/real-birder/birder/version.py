__version__ = "v0.8.4"
