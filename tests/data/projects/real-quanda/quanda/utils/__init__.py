"""Utilities."""

from quanda.utils import common, datasets, functions, training

__all__ = ["common", "datasets", "functions", "training"]
