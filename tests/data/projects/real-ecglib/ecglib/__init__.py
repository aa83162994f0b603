from . import models
from . import preprocessing
from . import data
from . import predict

__all__ = [
    "models",
    "preprocessing",
    "data",
    "predict",
]
