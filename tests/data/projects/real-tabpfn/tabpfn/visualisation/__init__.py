"""Visualisation utilities for TabPFN."""

#  Copyright (c) Prior Labs GmbH 2026.

from tabpfn.visualisation.regression_distribution import plot_regression_distribution

__all__ = ["plot_regression_distribution"]
