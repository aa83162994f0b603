"""Public API for Trainer."""

from pina._src.core.trainer import Trainer

__all__ = ["Trainer"]
