# Copyright (c) Facebook, Inc. and its affiliates.
#
# This source code is licensed under the BSD license found in the
# LICENSE file in the root directory of this source tree.

from typing import List

from .mevo import BaselineSoftmaxNllLoss
from .mevo import MemoryEfficientVocabOutput as MEVO
from .offload import OffloadModel
from .sync_batchnorm import SyncBatchNorm

__all__: List[str] = []
