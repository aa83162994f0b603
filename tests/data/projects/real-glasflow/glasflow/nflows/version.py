__version__ = "0.14+glasflow"
VERSION = __version__
