# __all__ = ['base', 'datasets', 'model_zoo', 'utils']
#
# from . import (
#     base,
#     datasets,
#     model_zoo,
#     utils
# )
