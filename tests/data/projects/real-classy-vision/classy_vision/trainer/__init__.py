#!/usr/bin/env python3
# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .classy_trainer import ClassyTrainer
from .distributed_trainer import DistributedTrainer
from .local_trainer import LocalTrainer


__all__ = ["ClassyTrainer", "DistributedTrainer", "LocalTrainer"]
