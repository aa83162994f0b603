__version__ = "v0.9.2"
