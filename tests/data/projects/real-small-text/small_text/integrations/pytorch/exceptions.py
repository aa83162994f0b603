class PytorchNotFoundError(ImportError):
    """"""
    pass
