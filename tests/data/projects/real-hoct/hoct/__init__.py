"""Inference API for Higher-Order Cell Tracking Transformer (HOCT) model."""

from hoct.__about__ import __version__
from hoct._api import predict
from hoct._models import available_models, load_model

__all__ = ["__version__", "available_models", "load_model", "predict"]
