""" """

from . import _preprocessors, augmenters, components, databases, model_configs, models, preprocessors, utils
from .version import __version__

__all__ = [
    "utils",
    "_preprocessors",
    "preprocessors",
    "augmenters",
    "databases",
    "components",
    "models",
    "model_configs",
    "__version__",
]
