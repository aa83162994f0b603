# Copyright Amazon.com, Inc. or its affiliates. All Rights Reserved.
# SPDX-License-Identifier: Apache-2.0
"""Sharding utilities."""

from .shard_ops import *
from .sync_ops import (
    all_gather_forward_output,
    reduce_backward_grad,
    reduce_scatter_forward_output,
    scatter_forward_output,
    reduce_forward_output,
)
