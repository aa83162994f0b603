__version__ = "0.1.4"


def version():
    return __version__
