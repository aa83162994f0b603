__version__ = 'v2.3.0'
