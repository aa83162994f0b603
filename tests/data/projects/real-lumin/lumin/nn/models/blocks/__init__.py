# from .body import *  # noqa F304
# from .endcap import *  # noqa F304
# from .head import *  # noqa F304
# from .tail import *  # noqa F304

# __all__ = [*body.__all__, *endcap.__all__, *head.__all__, *tail.__all__]  # noqa F405
