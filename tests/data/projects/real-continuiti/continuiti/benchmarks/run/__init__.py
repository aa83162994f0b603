"""
`continuiti.benchmarks.run`

This module contains the functionality to run benchmarks in continuiti.
"""

from .run_config import RunConfig
from .runner import BenchmarkRunner

__all__ = ["RunConfig", "BenchmarkRunner"]
