# Copyright 2018 Amazon.com, Inc. or its affiliates. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License").
# You may not use this file except in compliance with the License.
# A copy of the License is located at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# or in the "license" file accompanying this file. This file is distributed
# on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either
# express or implied. See the License for the specific language governing
# permissions and limitations under the License.

from ._base import (
    Constant,
    day_of_month,
    day_of_month_index,
    day_of_week,
    day_of_week_index,
    day_of_year,
    day_of_year_index,
    hour_of_day,
    hour_of_day_index,
    minute_of_hour,
    minute_of_hour_index,
    month_of_year,
    month_of_year_index,
    second_of_minute,
    second_of_minute_index,
    TimeFeature,
    week_of_year,
    week_of_year_index,
    norm_freq_str,
    time_features_from_frequency_str,
)
from .holiday import SPECIAL_DATE_FEATURES, SpecialDateFeatureSet
from .lag import get_lags_for_frequency
from .seasonality import get_seasonality

__all__ = [
    "Constant",
    "day_of_month",
    "day_of_month_index",
    "day_of_week",
    "day_of_week_index",
    "day_of_year",
    "day_of_year_index",
    "get_lags_for_frequency",
    "get_seasonality",
    "hour_of_day",
    "hour_of_day_index",
    "minute_of_hour",
    "minute_of_hour_index",
    "month_of_year",
    "month_of_year_index",
    "second_of_minute",
    "second_of_minute_index",
    "norm_freq_str",
    "SPECIAL_DATE_FEATURES",
    "SpecialDateFeatureSet",
    "time_features_from_frequency_str",
    "TimeFeature",
    "week_of_year",
    "week_of_year_index",
]
