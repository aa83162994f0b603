"""Unified profiling — re-exports core profiler for convenience."""
from __future__ import annotations

from lobotomizer.core.profile import profile_model

__all__ = ["profile_model"]
