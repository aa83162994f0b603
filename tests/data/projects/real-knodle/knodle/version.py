# this is an auto-generated file on release
__version__ = '0.1.4'
