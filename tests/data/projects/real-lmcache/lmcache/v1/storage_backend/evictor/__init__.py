# SPDX-License-Identifier: Apache-2.0
# First Party
from lmcache.v1.storage_backend.evictor.base_evictor import PutStatus
from lmcache.v1.storage_backend.evictor.lru_evictor import LRUEvictor

__all__ = ["LRUEvictor", "PutStatus"]
