# SPDX-License-Identifier: Apache-2.0
# First Party
from lmcache.v1.compute.blend.utils import LMCBlenderBuilder

__all__ = [
    "LMCBlenderBuilder",
]
