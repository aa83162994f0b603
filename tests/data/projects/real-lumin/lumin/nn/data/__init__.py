# from .batch_yielder import *  # noqa F304
# from .fold_yielder import *  # noqa F304

# __all__ = [*batch_yielder.__all__, *fold_yielder.__all__]  # noqa F405
