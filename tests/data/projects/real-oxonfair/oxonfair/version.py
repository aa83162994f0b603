"""This is the oxonfair version file."""
__version__ = '0.3'
