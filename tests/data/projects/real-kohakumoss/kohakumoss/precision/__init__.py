"""Precision config and loss scaling."""

from kohakumoss.precision.config import (
    COMPUTE,
    DTYPES,
    apply_param_dtypes,
    autocast_factory,
    autocast_for,
    build_precision,
)
from kohakumoss.precision.scaler import DynamicScaler, NoScaler

__all__ = [
    "COMPUTE",
    "DTYPES",
    "DynamicScaler",
    "NoScaler",
    "apply_param_dtypes",
    "autocast_factory",
    "autocast_for",
    "build_precision",
]
