__version__ = '1.0.15'
