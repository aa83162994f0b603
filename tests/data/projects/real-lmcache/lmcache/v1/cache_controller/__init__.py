# SPDX-License-Identifier: Apache-2.0
# First Party
from lmcache.v1.cache_controller.executor import LMCacheClusterExecutor  # noqa: E501
from lmcache.v1.cache_controller.worker import LMCacheWorker  # noqa: E501

__all__ = [
    "LMCacheClusterExecutor",
    "LMCacheWorker",
]
