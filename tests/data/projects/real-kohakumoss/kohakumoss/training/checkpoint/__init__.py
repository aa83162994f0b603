"""Checkpoint save / resume."""

from kohakumoss.training.checkpoint.io import (
    capture_rng,
    load_checkpoint,
    restore_rng,
    save_checkpoint,
)
from kohakumoss.training.checkpoint.manager import CheckpointManager

__all__ = [
    "CheckpointManager",
    "capture_rng",
    "load_checkpoint",
    "restore_rng",
    "save_checkpoint",
]
