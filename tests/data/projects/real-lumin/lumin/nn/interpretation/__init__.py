# from .features import *  # noqa F304

# __all__ = [*features.__all__]  # noqa F405
