from tabicl.forecast.transforms._base import TimeTransform
from tabicl.forecast.transforms._calendar import (
    IndexEncoder,
    DatetimeEncoder,
    ExtendedDatetimeEncoder,
    FourierEncoder,
)
from tabicl.forecast.transforms._seasonality import AutoPeriodicEncoder, PeriodicDetectionConfig
from tabicl.forecast.transforms._pipeline import TimeTransformChain

__all__ = [
    "TimeTransform",
    "IndexEncoder",
    "DatetimeEncoder",
    "ExtendedDatetimeEncoder",
    "FourierEncoder",
    "AutoPeriodicEncoder",
    "PeriodicDetectionConfig",
    "TimeTransformChain",
]
