from topaz._version import __version__
