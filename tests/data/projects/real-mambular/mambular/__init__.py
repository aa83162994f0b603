from . import base_models, data_utils, models, utils
from .__version__ import __version__

__all__ = [
    "__version__",
    "base_models",
    "data_utils",
    "models",
    "utils",
]
