# SPDX-License-Identifier: MIT
# Copyright (c) 2023-now michaelfeil

from infinity_emb.inference.batch_handler import BatchHandler
from infinity_emb.inference.select_model import select_model
from infinity_emb.primitives import (
    Device,
    EmbeddingInner,
    EmbeddingReturnType,
    PrioritizedQueueItem,
)

__all__ = [
    "EmbeddingInner",
    "EmbeddingReturnType",
    "PrioritizedQueueItem",
    "Device",
    "BatchHandler",
    "select_model",
]
