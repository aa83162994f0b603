import logging

__version__ = "0.2.3"


def logger():
    return logging.getLogger("open_dubbing")
