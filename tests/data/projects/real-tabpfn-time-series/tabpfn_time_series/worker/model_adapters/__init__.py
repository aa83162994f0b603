"""Model adapters for converting models to a common prediction interface."""

from tabpfn_time_series.worker.model_adapters.base import (
    BaseModelAdapter,
    PointPredictionModelAdapter,
    InferenceConfig,
    PredictionOutput,
)
from tabpfn_time_series.worker.model_adapters.tabpfn_adapter import TabPFNModelAdapter

__all__ = [
    "BaseModelAdapter",
    "PointPredictionModelAdapter",
    "TabPFNModelAdapter",
    "InferenceConfig",
    "PredictionOutput",
]
