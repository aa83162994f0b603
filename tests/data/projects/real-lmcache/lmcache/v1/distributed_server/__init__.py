# SPDX-License-Identifier: Apache-2.0
# First Party
from lmcache.v1.distributed_server.abstract_server import (  # noqa: E501
    DistributedServerInterface,
)
from lmcache.v1.distributed_server.naive_server import (  # noqa: E501
    NaiveDistributedServer,
)

__all__ = [
    "DistributedServerInterface",
    "NaiveDistributedServer",
]
