# SPDX-License-Identifier: Apache-2.0
# First Party
from lmcache.v1.lookup_client.abstract_client import LookupClientInterface
from lmcache.v1.lookup_client.factory import LookupClientFactory
from lmcache.v1.lookup_client.lmcache_lookup_client import (
    LMCacheLookupClient,
    LMCacheLookupServer,
)
from lmcache.v1.lookup_client.mooncake_lookup_client import MooncakeLookupClient

__all__ = [
    "LookupClientInterface",
    "LookupClientFactory",
    "MooncakeLookupClient",
    "LMCacheLookupClient",
    "LMCacheLookupServer",
]
