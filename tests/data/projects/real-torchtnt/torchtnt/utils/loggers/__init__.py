# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

from .csv import CSVLogger
from .file import FileLogger
from .in_memory import InMemoryLogger
from .json import JSONLogger
from .logger import MetricLogger, Scalar
from .stdout import StdoutLogger
from .tensorboard import TensorBoardLogger
from .utils import scalar_to_float


__all__ = [
    "CSVLogger",
    "FileLogger",
    "InMemoryLogger",
    "JSONLogger",
    "MetricLogger",
    "Scalar",
    "StdoutLogger",
    "TensorBoardLogger",
    "scalar_to_float",
]
