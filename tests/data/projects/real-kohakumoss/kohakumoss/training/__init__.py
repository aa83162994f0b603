"""Training: TrainStep, optimisers, precision, EMA, checkpoints, callbacks, drivers."""

from kohakumoss.training.state import TrainState
from kohakumoss.training.step import DeviceBatcher, TrainStep, token_counter

__all__ = ["DeviceBatcher", "TrainState", "TrainStep", "token_counter"]
