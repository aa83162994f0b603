from .ae import Autoencoder
from .probability_weighted_ae import ProbabilityWeightedAutoencoder
from .rolling_ae import RollingAutoencoder
from .scaler import AnomalyMeanScaler, AnomalyMinMaxScaler, AnomalyStandardScaler

"""
This module contains the anomaly detection algorithms for the
deep_river package.
"""
__all__ = [
    "AnomalyStandardScaler",
    "AnomalyMeanScaler",
    "AnomalyMinMaxScaler",
    "Autoencoder",
    "ProbabilityWeightedAutoencoder",
    "RollingAutoencoder",
]
