def exists(x):
    return x is not None
