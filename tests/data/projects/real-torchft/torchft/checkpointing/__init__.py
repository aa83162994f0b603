# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""
Checkpointing
==============

This module implements methods for checkpointing and resuming training from a checkpoint.
"""

from torchft.checkpointing.http_transport import HTTPTransport
from torchft.checkpointing.transport import CheckpointTransport

__all__ = [
    "HTTPTransport",
    "CheckpointTransport",
]
