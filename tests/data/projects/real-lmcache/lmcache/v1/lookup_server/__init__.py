# SPDX-License-Identifier: Apache-2.0
# First Party
from lmcache.v1.lookup_server.abstract_server import LookupServerInterface  # noqa: E501
from lmcache.v1.lookup_server.redis_server import RedisLookupServer  # noqa: E501

__all__ = [
    "LookupServerInterface",
    "RedisLookupServer",
]
