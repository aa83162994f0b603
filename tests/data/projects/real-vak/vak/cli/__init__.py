"""command-line interface functions for training,
creating learning curves, etc."""

from . import cli, eval, learncurve, predict, prep, train

__all__ = [
    "cli",
    "eval",
    "learncurve",
    "predict",
    "prep",
    "train",
]
