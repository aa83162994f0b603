# Copyright 2024 Databricks
# SPDX-License-Identifier: Apache-2.0

from megablocks.ops.binned_gather import binned_gather
from megablocks.ops.binned_scatter import binned_scatter
from megablocks.ops.cumsum import exclusive_cumsum, inclusive_cumsum
from megablocks.ops.gather import gather
from megablocks.ops.histogram import histogram
from megablocks.ops.padded_gather import padded_gather
from megablocks.ops.padded_scatter import padded_scatter
from megablocks.ops.repeat import repeat
from megablocks.ops.replicate import replicate
from megablocks.ops.round_up import round_up
from megablocks.ops.scatter import scatter
from megablocks.ops.sort import sort
from megablocks.ops.sum import sum
from megablocks.ops.topology import topology

__all__ = [
    'binned_gather',
    'binned_scatter',
    'exclusive_cumsum',
    'inclusive_cumsum',
    'gather',
    'histogram',
    'padded_gather',
    'padded_scatter',
    'repeat',
    'replicate',
    'round_up',
    'scatter',
    'sort',
    'sum',
    'topology',
]
