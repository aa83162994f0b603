# from .basic_weighted import *  # noqa F304
# from .hep_losses import *  # noqa F304

# __all__ = [*basic_weighted.__all__, * hep_losses.__all__]  # noqa F405
