from .basic_features import (
    RunningIndexFeature,
    CalendarFeature,
    AdditionalCalendarFeature,
    PeriodicSinCosineFeature,
)
from .auto_features import AutoSeasonalFeature
from .feature_transformer import FeatureTransformer

__all__ = [
    "RunningIndexFeature",
    "CalendarFeature",
    "AdditionalCalendarFeature",
    "AutoSeasonalFeature",
    "PeriodicSinCosineFeature",
    "FeatureTransformer",
]
