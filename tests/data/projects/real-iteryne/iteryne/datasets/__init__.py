"""Built-in task samplers for standard meta-learning benchmarks."""

from __future__ import annotations

from .sinusoid import SinusoidTaskSampler

__all__ = ["SinusoidTaskSampler"]
