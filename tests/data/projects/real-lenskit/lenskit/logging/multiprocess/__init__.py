# This file is part of LensKit.
# Copyright (C) 2018-2023 Boise State University.
# Copyright (C) 2023-2025 Drexel University.
# Licensed under the MIT license, see LICENSE.md for details.
# SPDX-License-Identifier: MIT

from ._monitor import Monitor, get_monitor
from ._records import RecordSink
from ._worker import WorkerContext, WorkerLogConfig, send_task

__all__ = [
    "Monitor",
    "get_monitor",
    "WorkerContext",
    "WorkerLogConfig",
    "send_task",
    "RecordSink",
]
