__version__ = '2.4.0'
