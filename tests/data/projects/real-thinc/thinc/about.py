__version__ = "9.1.1"
__release__ = True
