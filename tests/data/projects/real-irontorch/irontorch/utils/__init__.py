# -*- coding: utf-8 -*-
"""Utility functions for training."""

from irontorch.utils.helper import set_seed  # noqa: F401
from irontorch.utils.scaler import GradScaler  # noqa: F401
from irontorch.utils.clip_grad import dispatch_clip_grad  # noqa: F401

__all__ = ["set_seed", "GradScaler", "dispatch_clip_grad"]
