# from .summary_stat import *  # noqa F304

# __all__ = [*summary_stat.__all__]  # noqa F405
