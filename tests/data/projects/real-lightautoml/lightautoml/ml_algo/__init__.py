"""Modules with machine learning algorithms and hyperparameters tuning tools."""

__all__ = [
    "tuning",
    "base",
    "boost_lgbm",
    "boost_cb",
    "linear_sklearn",
    "dl_model",
    "torch_based",
    "whitebox",
    "utils",
]
