# This file is part of LensKit.
# Copyright (C) 2018-2023 Boise State University.
# Copyright (C) 2023-2025 Drexel University.
# Licensed under the MIT license, see LICENSE.md for details.
# SPDX-License-Identifier: MIT

"""
LensKit ALS implementations.
"""

from ._common import ALSBase, ALSConfig
from ._explicit import BiasedMFConfig, BiasedMFScorer
from ._implicit import ImplicitMFConfig, ImplicitMFScorer

__all__ = [
    "ALSBase",
    "ALSConfig",
    "BiasedMFScorer",
    "BiasedMFConfig",
    "ImplicitMFScorer",
    "ImplicitMFConfig",
]
