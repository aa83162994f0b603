# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

from .base_csv_writer import BaseCSVWriter
from .dcp_saver import DistributedCheckpointSaver
from .early_stopping import EarlyStopping
from .empty_cuda_cache import EmptyCudaCache
from .garbage_collector import GarbageCollector
from .iteration_time_logger import IterationTimeLogger
from .lambda_callback import Lambda
from .learning_rate_monitor import LearningRateMonitor
from .memory_snapshot import MemorySnapshot
from .module_summary import ModuleSummary
from .progress_reporter import ProgressReporter
from .pytorch_profiler import PyTorchProfiler
from .slow_rank_detector import SlowRankDetector
from .system_resources_monitor import SystemResourcesMonitor
from .tensorboard_parameter_monitor import TensorBoardParameterMonitor
from .throughput_logger import ThroughputLogger
from .time_limit_interrupter import TimeLimitInterrupter
from .time_wait_for_batch_logger import TimeWaitForBatchLogger
from .torch_compile import TorchCompile
from .torchsnapshot_saver import TorchSnapshotSaver
from .tqdm_progress_bar import TQDMProgressBar
from .train_progress_monitor import TrainProgressMonitor

__all__ = [
    "BaseCSVWriter",
    "EarlyStopping",
    "EmptyCudaCache",
    "GarbageCollector",
    "IterationTimeLogger",
    "Lambda",
    "LearningRateMonitor",
    "MemorySnapshot",
    "ModuleSummary",
    "ProgressReporter",
    "PyTorchProfiler",
    "SlowRankDetector",
    "SystemResourcesMonitor",
    "TensorBoardParameterMonitor",
    "ThroughputLogger",
    "TimeLimitInterrupter",
    "TimeWaitForBatchLogger",
    "TorchCompile",
    "TorchSnapshotSaver",
    "TQDMProgressBar",
    "TrainProgressMonitor",
    "DistributedCheckpointSaver",
]
