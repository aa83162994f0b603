"""Copyright (c) Microsoft Corporation. Licensed under the MIT license."""

from aurora.batch import Batch, Metadata
from aurora.insolation import insolation
from aurora.model.aurora import (
    Aurora,
    Aurora12hPretrained,
    AuroraAirPollution,
    AuroraHighRes,
    AuroraPretrained,
    AuroraSmall,
    AuroraSmallPretrained,
    AuroraV1p5,
    AuroraV1p5Ensemble,
    AuroraWave,
)
from aurora.rollout import rollout
from aurora.tracker import Tracker

__all__ = [
    "Aurora",
    "AuroraPretrained",
    "AuroraSmallPretrained",
    "AuroraSmall",
    "Aurora12hPretrained",
    "AuroraHighRes",
    "AuroraAirPollution",
    "AuroraWave",
    "AuroraV1p5",
    "AuroraV1p5Ensemble",
    "Batch",
    "Metadata",
    "insolation",
    "rollout",
    "Tracker",
]
