r"""Gradient Boosting Decision Trees package."""
from .gbdt import GBDT
from .tuned_xgboost import XGBoost
from .tuned_catboost import CatBoost
from .tuned_lightgbm import LightGBM

__all__ = classes = [
    'GBDT',
    'XGBoost',
    'CatBoost',
    'LightGBM',
]
