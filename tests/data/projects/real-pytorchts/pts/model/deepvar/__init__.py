from .deepvar_estimator import DeepVAREstimator
