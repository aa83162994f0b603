# This file is part of LensKit.
# Copyright (C) 2018-2023 Boise State University.
# Copyright (C) 2023-2025 Drexel University.
# Licensed under the MIT license, see LICENSE.md for details.
# SPDX-License-Identifier: MIT

"""
Logging, progress, and resource records.
"""

from ._console import console, stdout_console
from ._proxy import get_logger
from .config import LoggingConfig, basic_logging, notebook_logging
from .formats import friendly_duration
from .progress import Progress, item_progress, set_progress_impl
from .stopwatch import Stopwatch
from .tasks import Task
from .tracing import Tracer, get_tracer, trace

__all__ = [
    "LoggingConfig",
    "basic_logging",
    "notebook_logging",
    "Progress",
    "item_progress",
    "set_progress_impl",
    "Task",
    "get_logger",
    "get_tracer",
    "trace",
    "Tracer",
    "console",
    "stdout_console",
    "friendly_duration",
    "Stopwatch",
]
