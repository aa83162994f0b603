from .estimator import BaseEstimator, ConfigurableBaseEstimator

__all__ = ["BaseEstimator", "ConfigurableBaseEstimator"]
