"""
Copyright (c) Meta Platforms, Inc. and affiliates.

This source code is licensed under the MIT license found in the
LICENSE file in the root directory of this source tree.
"""

from __future__ import annotations

__all__ = [
    "ATOMIC_RADII",
    "KHOT_EMBEDDINGS",
    "CONTINUOUS_EMBEDDINGS",
    "QMOF_KHOT_EMBEDDINGS",
]

from .atomic_radii import ATOMIC_RADII
from .continuous_embeddings import CONTINUOUS_EMBEDDINGS
from .khot_embeddings import KHOT_EMBEDDINGS
from .qmof_khot_embeddings import QMOF_KHOT_EMBEDDINGS
