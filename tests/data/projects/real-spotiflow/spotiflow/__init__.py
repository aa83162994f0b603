from ._version import __version__, __version_tuple__
