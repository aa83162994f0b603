__version__ = '0.3.3-post2'
