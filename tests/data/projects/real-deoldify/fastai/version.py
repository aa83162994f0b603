__all__ = ['__version__']
__version__ = '1.0.56.dev0'
