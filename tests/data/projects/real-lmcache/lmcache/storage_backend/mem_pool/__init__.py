# SPDX-License-Identifier: Apache-2.0
# First Party
from lmcache.storage_backend.mem_pool.base_pool import KVObj
from lmcache.storage_backend.mem_pool.local_pool import (
    LocalCPUBufferPool,
    LocalCPUPool,
    LocalGPUPool,
    LocalPool,
)

__all__ = [
    "LocalPool",
    "LocalCPUPool",
    "LocalGPUPool",
    "LocalCPUBufferPool",
    "KVObj",
]
