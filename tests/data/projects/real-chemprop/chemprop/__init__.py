from . import data, exceptions, featurizers, models, nn, schedulers, uncertainty, utils

__all__ = [
    "data",
    "featurizers",
    "models",
    "nn",
    "utils",
    "exceptions",
    "schedulers",
    "uncertainty",
]

__version__ = "2.3.1"
