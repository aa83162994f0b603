# This file is part of LensKit.
# Copyright (C) 2018-2023 Boise State University.
# Copyright (C) 2023-2025 Drexel University.
# Licensed under the MIT license, see LICENSE.md for details.
# SPDX-License-Identifier: MIT

"""
Basic and baseline pipeline components.
"""

from .bias import BiasConfig, BiasModel, BiasScorer, Damping
from .candidates import (
    AllTrainingItemsCandidateSelector,
    TrainingItemsCandidateConfig,
    TrainingItemsCandidateSelector,
    UnratedTrainingItemsCandidateSelector,
)
from .composite import FallbackScorer
from .history import UserTrainingHistoryLookup
from .popularity import PopConfig, PopScorer
from .random import RandomSelector, SoftmaxRanker
from .topn import TopNConfig, TopNRanker

__all__ = [
    "BiasModel",
    "BiasConfig",
    "BiasScorer",
    "Damping",
    "PopConfig",
    "PopScorer",
    "TopNConfig",
    "TopNRanker",
    "RandomSelector",
    "SoftmaxRanker",
    "UserTrainingHistoryLookup",
    "TrainingItemsCandidateConfig",
    "TrainingItemsCandidateSelector",
    "UnratedTrainingItemsCandidateSelector",
    "AllTrainingItemsCandidateSelector",
    "FallbackScorer",
]
