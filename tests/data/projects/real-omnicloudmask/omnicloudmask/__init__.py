from .__version__ import __version__
from .constants import CLASS_NAMES
from .cloud_mask import predict_from_array, predict_from_batch, predict_from_load_func
from .data_loaders import load_ls8, load_multiband, load_s2

__all__ = [
    "predict_from_load_func",
    "predict_from_array",
    "predict_from_batch",
    "load_ls8",
    "load_multiband",
    "load_s2",
    "CLASS_NAMES",
    "__version__",
]
