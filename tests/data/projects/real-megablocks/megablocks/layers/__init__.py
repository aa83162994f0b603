# Copyright 2024 Databricks
# SPDX-License-Identifier: Apache-2.0

from megablocks.layers.dmoe import dMoE
from megablocks.layers.moe import MoE

__all__ = [
    'MoE',
    'dMoE',
]
