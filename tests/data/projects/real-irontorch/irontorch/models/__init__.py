# -*- coding: utf-8 -*-
"""Model utilities for training."""

from irontorch.models.ema import ModelEMA

__all__ = ["ModelEMA"]
