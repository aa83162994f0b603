__version_tuple__ = (0, 4, 13)
