__version__ = '1.15.6'
