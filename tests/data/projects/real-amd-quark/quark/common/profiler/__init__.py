#
# Copyright (C) 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from .metrics import (
    BaseMetric,
    CheckpointMetric,
    CPUMemoryMbMetric,
    CPUPeakMemoryMetric,
    DiskReadMbMetric,
    DiskWriteMbMetric,
    MetricContext,
    PeakCacheDirDiskUsageMbMetric,
    RelativeTimeMetric,
    StepNameMetric,
    SummaryMetric,
    TimestampMetric,
    TotalDiskReadMbMetric,
    TotalDiskWriteMbMetric,
    TotalTimeMetric,
)
from .profiler import GlobalProfiler, ProfileStep, profile_scope

__all__ = [
    # Profiler constants
    "ProfileStep",
    "GlobalProfiler",
    "profile_scope",
    # Base classes for custom metrics
    "BaseMetric",
    "SummaryMetric",
    "CheckpointMetric",
    "MetricContext",
    # Built-in summary metrics
    "TotalTimeMetric",
    "CPUPeakMemoryMetric",
    "TotalDiskReadMbMetric",
    "TotalDiskWriteMbMetric",
    "PeakCacheDirDiskUsageMbMetric",
    # Built-in checkpoint metrics
    "StepNameMetric",
    "TimestampMetric",
    "RelativeTimeMetric",
    "CPUMemoryMbMetric",
    "DiskReadMbMetric",
    "DiskWriteMbMetric",
]
