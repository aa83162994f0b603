from .md import ApaxJaxMD
from .model import (
    Apax,
    ApaxApplyTransformation,
    ApaxCalibrate,
    ApaxEnsemble,
    ApaxImport,
)
from .utils import AddData

__all__ = [
    "Apax",
    "ApaxEnsemble",
    "ApaxJaxMD",
    "ApaxImport",
    "ApaxCalibrate",
    "AddData",
    "ApaxApplyTransformation",
]

try:
    from .analysis import ApaxBatchPrediction  # noqa: F401
    from .selection import BatchKernelSelection  # noqa: F401

    __all__.append("ApaxBatchPrediction")
    __all__.append("BatchKernelSelection")
except ImportError:
    pass

try:
    from .hyper_optimize import ApaxOptimizeHyperparameters  # noqa: F401

    __all__.append("ApaxOptimizeHyperparameters")
except ImportError:
    pass
