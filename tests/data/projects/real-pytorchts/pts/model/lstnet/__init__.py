from .lstnet_estimator import LSTNetEstimator
