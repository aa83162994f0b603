__version_triple__ = (0, 10, 0)
__version__ = ".".join(map(str, __version_triple__))
