# This file is part of LensKit.
# Copyright (C) 2018-2023 Boise State University.
# Copyright (C) 2023-2025 Drexel University.
# Licensed under the MIT license, see LICENSE.md for details.
# SPDX-License-Identifier: MIT

"""
LensKit reranking metrics.
"""

from ._lip import least_item_promoted
from ._rbo import rank_biased_overlap

__all__ = ["least_item_promoted", "rank_biased_overlap"]
