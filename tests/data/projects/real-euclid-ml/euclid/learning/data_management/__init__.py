"""Data loading utilities."""

from .dataloader import DataLoader
from .streamdataloader import StreamDataLoader
__all__ = ["DataLoader","StreamDataLoader"]
