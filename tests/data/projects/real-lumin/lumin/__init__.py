# from .data_processing import *  # noqa F304
# from .evaluation import *  # noqa F304
# from .inference import *  # noqa F304
# from .nn import *  # noqa F304
# from .optimisation import *  # noqa F304
# from .plotting import *  # noqa F304
# from .utils import *  # noqa F304
# from .version import *  # noqa F304

# __all__ = [*data_processing.__all__, *evaluation.__all__, *inference.__all__, *nn.__all__, *optimisation.__all__, *plotting.__all__,  # noqa F405
#            *utils.__all__, *version.__all__]  # noqa F405
