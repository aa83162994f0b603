"""Sinusoid regression task sampler (MAML paper, section 5.1).

Each task regresses a sine wave ``y = A * sin(x + p)`` whose amplitude ``A`` and
phase ``p`` are drawn per task. Inputs ``x`` are sampled uniformly from a fixed
range. This is a self-contained benchmark (no downloads) that exercises the full
meta-learning loop and is used throughout the tests and the quickstart.
"""

from __future__ import annotations

import math

import torch

from ..tasks import Task

__all__ = ["SinusoidTaskSampler"]


class SinusoidTaskSampler:
    """Sample few-shot sinusoid regression tasks.

    Parameters
    ----------
    amp_range:
        Range ``(low, high)`` for the amplitude ``A``.
    phase_range:
        Range ``(low, high)`` for the phase ``p``.
    x_range:
        Range ``(low, high)`` from which inputs are drawn uniformly.
    k_support:
        Number of support points per task (``K``).
    k_query:
        Number of query points per task.
    generator:
        Optional :class:`torch.Generator` for reproducibility. If ``None`` a new
        one is created; pass ``seed`` to seed it.
    seed:
        Convenience seed used to build a generator when ``generator`` is ``None``.
    device, dtype:
        Tensor placement/precision for sampled data.
    """

    def __init__(
        self,
        amp_range: tuple[float, float] = (0.1, 5.0),
        phase_range: tuple[float, float] = (0.0, math.pi),
        x_range: tuple[float, float] = (-5.0, 5.0),
        k_support: int = 10,
        k_query: int = 10,
        *,
        generator: torch.Generator | None = None,
        seed: int | None = None,
        device: torch.device | str | None = None,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        self.amp_range = amp_range
        self.phase_range = phase_range
        self.x_range = x_range
        self.k_support = k_support
        self.k_query = k_query
        self.device = torch.device(device) if device is not None else None
        self.dtype = dtype
        if generator is None:
            generator = torch.Generator()
            if seed is not None:
                generator.manual_seed(seed)
        self.generator = generator

    def _uniform(self, n: int, low: float, high: float) -> torch.Tensor:
        u = torch.rand(n, 1, generator=self.generator, dtype=self.dtype)
        out = low + (high - low) * u
        if self.device is not None:
            out = out.to(self.device)
        return out

    def _task(self) -> Task:
        amp = float(
            torch.empty(1, dtype=self.dtype)
            .uniform_(*self.amp_range, generator=self.generator)
            .item()
        )
        phase = float(
            torch.empty(1, dtype=self.dtype)
            .uniform_(*self.phase_range, generator=self.generator)
            .item()
        )
        n = self.k_support + self.k_query
        x = self._uniform(n, *self.x_range)
        y = amp * torch.sin(x + phase)
        return Task(
            support_x=x[: self.k_support],
            support_y=y[: self.k_support],
            query_x=x[self.k_support :],
            query_y=y[self.k_support :],
        )

    def sample(self, meta_batch_size: int) -> list[Task]:
        """Return ``meta_batch_size`` independently sampled sinusoid tasks."""
        return [self._task() for _ in range(meta_batch_size)]
