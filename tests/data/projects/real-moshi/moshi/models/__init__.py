# Copyright (c) Kyutai, all rights reserved.
# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.
"""
Models for the compression model Moshi,
"""

# flake8: noqa
from .compression import (
    CompressionModel,
    MimiModel,
)
from .lm import LMModel, LMGen
from .loaders import get_mimi, get_moshi_lm
