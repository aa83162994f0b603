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

__all__ = [
    "Estimator",
    "IncrementallyTrainable",
    "Predictor",
    "Forecast",
    "SampleForecast",
    "QuantileForecast",
    "Input",
    "InputSpec",
    "evaluate_forecasts",
    "evaluate_model",
]

from .estimator import Estimator, IncrementallyTrainable
from .predictor import Predictor
from .forecast import Forecast, SampleForecast, QuantileForecast
from .inputs import Input, InputSpec
from .evaluation import evaluate_forecasts, evaluate_model
