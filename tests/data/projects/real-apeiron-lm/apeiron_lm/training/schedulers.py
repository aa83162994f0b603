# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""Learning-rate schedulers for Apeiron LM  (v0.0.2)."""

from __future__ import annotations

import math
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LambdaLR


def get_cosine_schedule_with_warmup(
    optimizer:          Optimizer,
    num_warmup_steps:   int,
    num_training_steps: int,
    num_cycles:         float = 0.5,
    last_epoch:         int   = -1,
) -> LambdaLR:
    """
    Cosine annealing with linear warm-up.

    During warmup the LR rises linearly from 0 to the optimizer's initial LR.
    After warmup it follows a cosine decay to 0.

    Parameters
    ----------
    optimizer : torch.optim.Optimizer
    num_warmup_steps : int
    num_training_steps : int
    num_cycles : float
    last_epoch : int

    Returns
    -------
    torch.optim.lr_scheduler.LambdaLR
    """
    def lr_lambda(current_step: int) -> float:
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        progress = float(current_step - num_warmup_steps) / float(
            max(1, num_training_steps - num_warmup_steps)
        )
        return max(
            0.0,
            0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progress)),
        )

    return LambdaLR(optimizer, lr_lambda, last_epoch=last_epoch)


def get_linear_schedule_with_warmup(
    optimizer:          Optimizer,
    num_warmup_steps:   int,
    num_training_steps: int,
    last_epoch:         int = -1,
) -> LambdaLR:
    """
    Linear decay with linear warm-up.

    Parameters
    ----------
    optimizer : torch.optim.Optimizer
    num_warmup_steps : int
    num_training_steps : int
    last_epoch : int

    Returns
    -------
    torch.optim.lr_scheduler.LambdaLR
    """
    def lr_lambda(current_step: int) -> float:
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(
            0.0,
            float(num_training_steps - current_step)
            / float(max(1, num_training_steps - num_warmup_steps)),
        )

    return LambdaLR(optimizer, lr_lambda, last_epoch=last_epoch)


def get_constant_schedule_with_warmup(
    optimizer:        Optimizer,
    num_warmup_steps: int,
    last_epoch:       int = -1,
) -> LambdaLR:
    """
    Constant LR after linear warm-up.

    Parameters
    ----------
    optimizer : torch.optim.Optimizer
    num_warmup_steps : int
    last_epoch : int

    Returns
    -------
    torch.optim.lr_scheduler.LambdaLR
    """
    def lr_lambda(current_step: int) -> float:
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return 1.0

    return LambdaLR(optimizer, lr_lambda, last_epoch=last_epoch)
