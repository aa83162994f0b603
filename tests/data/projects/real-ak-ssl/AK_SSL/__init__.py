__name__ = "AK_SSL"
__version__ = "0.2.1"