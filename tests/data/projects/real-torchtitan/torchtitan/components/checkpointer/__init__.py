# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from .base import (
    BaseCheckpointManager,
    DATALOADER,
    LR_SCHEDULER,
    MODEL,
    ModelWrapper,
    OPTIMIZER,
    TRAIN_STATE,
)
from .dcp import AsyncMode, CheckpointManager

__all__ = [
    "AsyncMode",
    "BaseCheckpointManager",
    "CheckpointManager",
    "DATALOADER",
    "LR_SCHEDULER",
    "MODEL",
    "ModelWrapper",
    "OPTIMIZER",
    "TRAIN_STATE",
]
