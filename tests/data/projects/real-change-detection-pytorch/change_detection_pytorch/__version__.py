VERSION = (0, 1, 4)

__version__ = '.'.join(map(str, VERSION))
