class UnsupportedOperationException(Exception):
    pass
