"""Base classes for pytorch-foercasting models."""

from pytorch_forecasting.models.base._base_model import (
    AutoRegressiveBaseModel,
    AutoRegressiveBaseModelWithCovariates,
    BaseModel,
    BaseModelWithCovariates,
    Prediction,
)
from pytorch_forecasting.models.base._base_object import (
    _BaseObject,
    _BasePtForecaster,
    _BasePtForecasterV2,
)

__all__ = [
    "_BaseObject",
    "_BasePtForecaster",
    "_BasePtForecasterV2",
    "AutoRegressiveBaseModel",
    "AutoRegressiveBaseModelWithCovariates",
    "BaseModel",
    "BaseModelWithCovariates",
    "Prediction",
]
