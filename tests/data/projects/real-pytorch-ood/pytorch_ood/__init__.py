"""
PyTorch Out-of-Distribution Detection
"""

__version__ = "0.4.0"

from . import api, dataset, detector, loss, metrics, model, utils

__all__ = ["dataset", "detector", "loss", "metrics", "model", "utils", "api", "__version__"]
