"""Visualization helpers."""

from .plots import plot_grid, plot_signal, plot_trajectory

__all__ = ["plot_grid", "plot_signal", "plot_trajectory"]
