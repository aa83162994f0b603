# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""Miscellaneous utility functions for Apeiron LM  (v0.0.2)."""

from __future__ import annotations

import random
from typing import Dict, Optional, Union

import numpy as np
import torch
import torch.nn as nn


def set_seed(seed: int) -> None:
    """
    Set all random seeds for reproducibility.

    Parameters
    ----------
    seed : int
    """
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark     = False


def get_device(device: Optional[Union[str, torch.device]] = None) -> torch.device:
    """
    Resolve a device string or return the best available device.

    Parameters
    ----------
    device : str or torch.device or None
        If None, returns "cuda" if available, "mps" if available, else "cpu".

    Returns
    -------
    torch.device
    """
    if device is not None:
        return torch.device(device)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def count_parameters(model: nn.Module, trainable_only: bool = True) -> int:
    """
    Count model parameters.

    Parameters
    ----------
    model : nn.Module
    trainable_only : bool

    Returns
    -------
    int
    """
    if trainable_only:
        return sum(p.numel() for p in model.parameters() if p.requires_grad)
    return sum(p.numel() for p in model.parameters())


def human_readable_size(n: int) -> str:
    """
    Convert a parameter count to a human-readable string.

    Examples
    --------
    >>> human_readable_size(1_234_567)
    '1.23M'
    >>> human_readable_size(1_234_567_890)
    '1.23B'

    Parameters
    ----------
    n : int

    Returns
    -------
    str
    """
    if n < 1_000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1e3:.2f}K"
    if n < 1_000_000_000:
        return f"{n / 1e6:.2f}M"
    return f"{n / 1e9:.2f}B"


def model_summary(model: nn.Module) -> str:
    """
    Return a formatted parameter summary table for a model.

    Parameters
    ----------
    model : nn.Module

    Returns
    -------
    str

    Example
    -------
    >>> print(model_summary(model))
    ┌────────────────────────────────┬─────────────────┬──────────────┐
    │ Module                         │    Parameters   │  Trainable   │
    ├────────────────────────────────┼─────────────────┼──────────────┤
    │ byte_encoder                   │     12,582,912  │          Yes │
    ...
    """
    rows = []
    for name, mod in model.named_children():
        total     = sum(p.numel() for p in mod.parameters())
        trainable = sum(p.numel() for p in mod.parameters() if p.requires_grad)
        rows.append((name, total, trainable))

    total_all     = sum(p.numel() for p in model.parameters())
    trainable_all = sum(p.numel() for p in model.parameters() if p.requires_grad)

    col_w = max(len(r[0]) for r in rows) if rows else 20
    col_w = max(col_w, 20)

    header = (
        f"{'Module':<{col_w}}  {'Parameters':>14}  {'Trainable':>12}"
    )
    sep    = "-" * len(header)
    lines  = [sep, header, sep]
    for name, total, trainable in rows:
        flag = "Yes" if trainable > 0 else "No"
        lines.append(
            f"{name:<{col_w}}  {total:>14,}  {flag:>12}"
        )
    lines.append(sep)
    lines.append(
        f"{'TOTAL':<{col_w}}  {total_all:>14,}  "
        f"{human_readable_size(trainable_all):>12}"
    )
    lines.append(sep)
    return "\n".join(lines)
