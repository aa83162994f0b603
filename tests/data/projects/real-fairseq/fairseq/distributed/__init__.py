# Copyright (c) Facebook, Inc. and its affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .distributed_timeout_wrapper import DistributedTimeoutWrapper
from .fully_sharded_data_parallel import (
    fsdp_enable_wrap,
    fsdp_wrap,
    FullyShardedDataParallel,
)
from .legacy_distributed_data_parallel import LegacyDistributedDataParallel
from .module_proxy_wrapper import ModuleProxyWrapper
from .tpu_distributed_data_parallel import TPUDistributedDataParallel


__all__ = [
    "DistributedTimeoutWrapper",
    "fsdp_enable_wrap",
    "fsdp_wrap",
    "FullyShardedDataParallel",
    "LegacyDistributedDataParallel",
    "ModuleProxyWrapper",
    "TPUDistributedDataParallel",
]
