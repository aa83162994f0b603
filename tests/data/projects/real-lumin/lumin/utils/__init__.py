# from .data import *  # noqa F304
# from .misc import *  # noqa F304
# from .multiprocessing import *  # noqa F304
# from .statistics import *  # noqa F304

# __all__ = [*data.__all__, *misc.__all__, *multiprocessing.__all__, *statistics.__all__]  # noqa F405
