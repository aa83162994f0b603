from deep_river.forecasting.forecaster import DeepForecaster
from deep_river.forecasting.zoo import (
    GRUForecaster,
    LinearForecaster,
    LiquidForecaster,
    LSTMForecaster,
    MLPForecaster,
    NBEATSForecaster,
    RNNForecaster,
)

"""This module contains forecasters for the deep_river package."""

__all__ = [
    "DeepForecaster",
    "LinearForecaster",
    "MLPForecaster",
    "RNNForecaster",
    "GRUForecaster",
    "LiquidForecaster",
    "LSTMForecaster",
    "NBEATSForecaster",
]
