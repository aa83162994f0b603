#
# Copyright (c) 2023 salesforce.com, inc.
# All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# For full license text, see the LICENSE file in the repo root or https://opensource.org/licenses/BSD-3-Clause
#
from .blocks import (
    AutoCorrelation,
    SeasonalLayernorm,
    SeriesDecomposeBlock,
    MovingAverageBlock,
    FullAttention,
    ProbAttention,
)
from .layers import AutoCorrelationLayer, ConvLayer, AttentionLayer

from .embed import DataEmbedding, DataEmbeddingWoPos, ETSEmbedding
