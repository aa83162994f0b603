# Author: Sergey Polivin <s.polivin@gmail.com>
# License: MIT License

# ruff: noqa: F401

from .display import format_metrics
from .metrics_logger import MetricsLogger
from .metrics_plotter import MetricsPlotter
from .metrics_tracker import MetricsTracker
