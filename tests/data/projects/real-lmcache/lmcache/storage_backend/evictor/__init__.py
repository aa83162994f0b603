# SPDX-License-Identifier: Apache-2.0
# First Party
from lmcache.storage_backend.evictor.base_evictor import DummyEvictor
from lmcache.storage_backend.evictor.lru_evictor import LRUEvictor

__all__ = ["LRUEvictor", "DummyEvictor"]
