from .holiday import (
    CustomDateFeatureSet,
    CustomHolidayFeatureSet,
)
from .fourier_date_feature import fourier_time_features_from_frequency
from .lags import lags_for_fourier_time_features_from_frequency
