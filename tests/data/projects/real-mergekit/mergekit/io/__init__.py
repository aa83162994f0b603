# Copyright (C) 2026 Arcee AI
# SPDX-License-Identifier: LGPL-3.0-only

from mergekit.io.lazy_tensor_loader import (
    LazyTensorLoader,
    ShardedTensorIndex,
    ShardInfo,
)
from mergekit.io.tensor_writer import TensorWriter

__all__ = [
    "LazyTensorLoader",
    "ShardedTensorIndex",
    "ShardInfo",
    "TensorWriter",
]
