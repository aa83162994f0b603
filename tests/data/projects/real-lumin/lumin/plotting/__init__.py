# from .data_viewing import *  # noqa F304
# from .interpretation import *  # noqa F304
# from .plot_settings import *  # noqa F304
# from .results import *  # noqa F304
# from .training import *  # noqa F304

# __all__ = [*data_viewing.__all__, *interpretation.__all__, *plot_settings.__all__, *results.__all__, *training.__all__]  # noqa F405
