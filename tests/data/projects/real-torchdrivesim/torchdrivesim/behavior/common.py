class InitializationFailedError(RuntimeError):
    pass
