# This file is part of LensKit.
# Copyright (C) 2018-2023 Boise State University.
# Copyright (C) 2023-2025 Drexel University.
# Licensed under the MIT license, see LICENSE.md for details.
# SPDX-License-Identifier: MIT

"""
Tune parameters using Ray Tune.
"""

from ._search import PipelineTuner
from .spec import TuningSpec

__all__ = [
    "PipelineTuner",
    "TuningSpec",
]
