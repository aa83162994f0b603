# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: Apache-2.0

from .__about__ import __version__
from .base import BaseChronosPipeline, ForecastType
from .chronos import (
    ChronosConfig,
    ChronosModel,
    ChronosPipeline,
    ChronosTokenizer,
    MeanScaleUniformBins,
)
from .chronos2 import Chronos2ForecastingConfig, Chronos2Model, Chronos2Pipeline
from .chronos_bolt import ChronosBoltConfig, ChronosBoltPipeline

__all__ = [
    "__version__",
    "BaseChronosPipeline",
    "ForecastType",
    "ChronosConfig",
    "ChronosModel",
    "ChronosPipeline",
    "ChronosTokenizer",
    "MeanScaleUniformBins",
    "ChronosBoltConfig",
    "ChronosBoltPipeline",
    "Chronos2ForecastingConfig",
    "Chronos2Model",
    "Chronos2Pipeline",
]
