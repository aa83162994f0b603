__version__ = "v0.5.5"
