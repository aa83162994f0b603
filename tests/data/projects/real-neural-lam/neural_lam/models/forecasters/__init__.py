"""
Forecasters for the Neural-LAM model.
"""

# Local
from .autoregressive import ARForecaster
from .base import Forecaster
