#
# Copyright (C) 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

"""Profiler metrics module."""

from .base import BaseMetric, CheckpointMetric, MetricContext, SummaryMetric
from .cache_dir_summary import PeakCacheDirDiskUsageMbMetric
from .checkpoint import (
    CPUMemoryMbMetric,
    RelativeTimeMetric,
    StepNameMetric,
    TimestampMetric,
)
from .disk_checkpoint import DiskReadMbMetric, DiskWriteMbMetric
from .disk_summary import TotalDiskReadMbMetric, TotalDiskWriteMbMetric
from .gpu_checkpoint import GPUMemoryMbMetric
from .gpu_summary import GPUPeakMemoryMetric
from .summary import CPUPeakMemoryMetric, TotalTimeMetric

__all__ = [
    # Base classes
    "BaseMetric",
    "SummaryMetric",
    "CheckpointMetric",
    "MetricContext",
    # Summary metrics
    "TotalTimeMetric",
    "CPUPeakMemoryMetric",
    "GPUPeakMemoryMetric",
    "TotalDiskReadMbMetric",
    "TotalDiskWriteMbMetric",
    "PeakCacheDirDiskUsageMbMetric",
    # Checkpoint metrics
    "StepNameMetric",
    "TimestampMetric",
    "RelativeTimeMetric",
    "CPUMemoryMbMetric",
    "GPUMemoryMbMetric",
    "DiskReadMbMetric",
    "DiskWriteMbMetric",
]
