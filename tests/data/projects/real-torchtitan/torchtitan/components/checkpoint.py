# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Compatibility imports for the relocated DCP checkpoint manager."""

from .checkpointer.base import (
    DATALOADER,
    LR_SCHEDULER,
    MODEL,
    ModelWrapper,
    OPTIMIZER,
    TRAIN_STATE,
)
from .checkpointer.dcp import AsyncMode, CheckpointManager

__all__ = [
    "AsyncMode",
    "CheckpointManager",
    "DATALOADER",
    "LR_SCHEDULER",
    "MODEL",
    "ModelWrapper",
    "OPTIMIZER",
    "TRAIN_STATE",
]
