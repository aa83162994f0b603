"""Benchmark resources for Quanda."""

from quanda.benchmarks.resources.config_map import config_map
from quanda.benchmarks.resources.modules import pl_modules

__all__ = [
    "config_map",
    "sample_transforms",
    "pl_modules",
]
