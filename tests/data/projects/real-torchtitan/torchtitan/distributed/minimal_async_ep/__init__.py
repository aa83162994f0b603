# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from torchtitan.distributed.minimal_async_ep.api import (
    combine_op,
    dispatch_op,
    init_buffer,
    maybe_update_minimal_async_ep_config,
    MinimalAsyncEPDispatchMetadata,
)

__all__ = [
    "MinimalAsyncEPDispatchMetadata",
    "combine_op",
    "dispatch_op",
    "init_buffer",
    "maybe_update_minimal_async_ep_config",
]
