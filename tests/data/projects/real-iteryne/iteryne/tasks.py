"""Task abstractions for meta-learning.

A *task* in MAML is a small learning problem split into a support set (used for
inner-loop adaptation) and a query set (used to compute the meta-loss). A *task
sampler* draws a batch of such tasks from a task distribution ``p(T)``.

These types are intentionally minimal and dataset-agnostic: the tensors can hold
anything a user's model and loss understand. Helpers for specific benchmarks
(e.g. the sinusoid regression problem) live under :mod:`iteryne.datasets`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from torch import Tensor

__all__ = ["Task", "TaskSampler"]


@dataclass(frozen=True)
class Task:
    """A single few-shot task: a support split and a query split.

    Attributes
    ----------
    support_x, support_y:
        Inputs and targets used for inner-loop adaptation (``K`` shots).
    query_x, query_y:
        Held-out inputs and targets used to evaluate the adapted model and form
        the meta-objective.
    """

    support_x: Tensor
    support_y: Tensor
    query_x: Tensor
    query_y: Tensor


@runtime_checkable
class TaskSampler(Protocol):
    """Protocol for objects that sample a batch of :class:`Task` from ``p(T)``."""

    def sample(self, meta_batch_size: int) -> list[Task]:
        """Return ``meta_batch_size`` freshly sampled tasks."""
        ...
