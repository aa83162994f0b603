"""Atomic checkpoint save and exact resume."""

from .manager import CheckpointManager

__all__ = ["CheckpointManager"]
