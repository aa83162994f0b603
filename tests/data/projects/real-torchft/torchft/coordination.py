# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""
Coordination (Low Level API)
============================

.. warning::
    As torchft is still in development, the APIs in this module are subject to change.

This module exposes low level coordination APIs to allow you to build your own
custom fault tolerance algorithms on top of torchft.

If you're looking for a more complete solution, please use the other modules in
torchft.

This provides direct access to the Lighthouse and Manager servers and clients.
"""

from torchft._torchft import (
    LighthouseClient,
    LighthouseServer,
    ManagerClient,
    ManagerServer,
    Quorum,
    QuorumMember,
)

__all__ = [
    "LighthouseClient",
    "LighthouseServer",
    "ManagerServer",
    "ManagerClient",
    "Quorum",
    "QuorumMember",
]
