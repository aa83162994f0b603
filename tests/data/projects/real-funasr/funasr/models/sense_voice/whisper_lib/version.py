__version__ = "20231117"
