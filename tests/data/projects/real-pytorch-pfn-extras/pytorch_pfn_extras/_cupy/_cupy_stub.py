class ndarray:
    pass
