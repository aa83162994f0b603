# from fold_train import *  # noqa F304

# __all__ = [*fold_train.__all__]  # noqa F405
