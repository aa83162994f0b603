# This file is part of LensKit.
# Copyright (C) 2018-2023 Boise State University.
# Copyright (C) 2023-2025 Drexel University.
# Licensed under the MIT license, see LICENSE.md for details.
# SPDX-License-Identifier: MIT

"""
LensKit ranking (and list) metrics.
"""

from ._base import RankingMetricBase
from ._dcg import DCG, NDCG
from ._entropy import entropy, rank_biased_entropy
from ._gini import ExposureGini, ListGini
from ._hit import Hit
from ._map import AveragePrecision
from ._pop import MeanPopRank
from ._pr import Precision, Recall
from ._rbp import RBP, rank_biased_precision
from ._recip import RecipRank
from ._weighting import GeometricRankWeight, LogRankWeight, RankWeight

__all__ = [
    "RankingMetricBase",
    "RankWeight",
    "GeometricRankWeight",
    "LogRankWeight",
    "Hit",
    "Precision",
    "Recall",
    "RecipRank",
    "NDCG",
    "DCG",
    "RBP",
    "rank_biased_precision",
    "MeanPopRank",
    "AveragePrecision",
    "ListGini",
    "ExposureGini",
    "entropy",
    "rank_biased_entropy",
]
