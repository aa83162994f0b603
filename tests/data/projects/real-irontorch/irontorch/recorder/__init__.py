# -*- coding: utf-8 -*-
"""Recorder module for logging and experiment tracking."""

from .logging import setup_logging
from .trackers import WandbLogger

__all__ = ["setup_logging", "WandbLogger"]
