from .classifier import EEGClassifier
from .regressor import EEGRegressor
from .version import __version__

__all__ = [
    "__version__",
    "EEGClassifier",
    "EEGRegressor",
]
