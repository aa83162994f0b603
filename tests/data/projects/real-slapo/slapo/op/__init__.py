# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: Apache-2.0
"""Custom Ops."""
from .attention import FlashAttention, FlashAttentionOp
from .cross_entropy import ParallelCrossEntropy
from .linear import FusedQKV, LinearWithSeparateBias, LinearWithSyncFunc
from .mlp import FusedMLP
from .utils import Print
