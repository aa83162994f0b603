"""Hyperparameter optimisation utilities for FujiCV."""

from fujicv.hpo.tuner import (
    OptunaPruningCallback,
    plot_optimization_history,
    plot_param_importances,
    run_hpo,
)

__all__ = [
    "run_hpo",
    "OptunaPruningCallback",
    "plot_optimization_history",
    "plot_param_importances",
]
