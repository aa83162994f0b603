__version__ = 'v0.0.1'
