# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from fairseq2.trainer import Trainer as Trainer  # noqa: F401
from fairseq2.trainer import TrainUnit as TrainUnit  # noqa: F401
