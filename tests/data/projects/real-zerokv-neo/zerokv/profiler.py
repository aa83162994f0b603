"""
Performance profiling for ZeroKV compression/decompression operations.

Tracks timing statistics per operation and provides cumulative reports.
Enable with ZEROKV_PROFILE=1 or via the profiler API directly.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import torch


@dataclass
class ProfileEntry:
    operation: str
    duration_ms: float
    input_shape: Optional[str] = None
    device: str = ""
    timestamp: float = 0.0


@dataclass
class ProfileStats:
    total_time_ms: float = 0.0
    call_count: int = 0
    min_ms: float = float("inf")
    max_ms: float = 0.0
    sum_ms: float = 0.0

    @property
    def avg_ms(self) -> float:
        return self.sum_ms / self.call_count if self.call_count > 0 else 0.0

    def to_dict(self) -> dict:
        return {
            "total_ms": round(self.total_time_ms, 3),
            "calls": self.call_count,
            "avg_ms": round(self.avg_ms, 4),
            "min_ms": round(self.min_ms, 4) if self.min_ms != float("inf") else 0.0,
            "max_ms": round(self.max_ms, 4),
        }


class ZeroKVProfiler:
    """Collects timing data for ZeroKV operations."""

    _instance: Optional["ZeroKVProfiler"] = None
    _enabled: bool = False

    def __init__(self) -> None:
        self._entries: List[ProfileEntry] = []
        self._stats: Dict[str, ProfileStats] = {}
        self._active_timers: Dict[str, float] = {}

    @classmethod
    def instance(cls) -> "ZeroKVProfiler":
        if cls._instance is None:
            cls._instance = cls()
        cls._instance._enabled = os.environ.get("ZEROKV_PROFILE", "").lower() in ("1", "true", "yes")
        return cls._instance

    @classmethod
    def reset(cls) -> None:
        cls._instance = None
        cls._enabled = False

    @contextmanager
    def timer(self, operation: str, input_shape: Optional[str] = None):
        """Context manager for timing operations."""
        if not self._enabled:
            yield
            return

        device = ""
        if torch.cuda.is_available():
            torch.cuda.synchronize()
            device = "cuda"
        elif hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
            device = "mps"
        else:
            device = "cpu"

        t0 = time.perf_counter()
        try:
            yield
        finally:
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            dt_ms = (time.perf_counter() - t0) * 1000

            entry = ProfileEntry(
                operation=operation,
                duration_ms=dt_ms,
                input_shape=input_shape,
                device=device,
                timestamp=time.time(),
            )
            self._entries.append(entry)

            if operation not in self._stats:
                self._stats[operation] = ProfileStats()
            stats = self._stats[operation]
            stats.call_count += 1
            stats.sum_ms += dt_ms
            stats.total_time_ms += dt_ms
            stats.min_ms = min(stats.min_ms, dt_ms)
            stats.max_ms = max(stats.max_ms, dt_ms)

    def report(self) -> Dict[str, dict]:
        """Return aggregated statistics per operation."""
        return {op: stats.to_dict() for op, stats in self._stats.items()}

    def summary(self) -> str:
        """Human-readable summary."""
        lines = ["=== ZeroKV Performance Profile ==="]
        total = sum(s.total_time_ms for s in self._stats.values())
        lines.append(f"Total time: {total:.2f} ms")
        lines.append("")

        for op, stats in sorted(self._stats.items(), key=lambda x: -x[1].total_time_ms):
            pct = (stats.total_time_ms / total * 100) if total > 0 else 0
            lines.append(
                f"  {op:30s} {stats.total_time_ms:8.2f} ms ({pct:5.1f}%)  "
                f"avg={stats.avg_ms:.4f} ms  calls={stats.call_count}"
            )

        return "\n".join(lines)

    def clear(self) -> None:
        self._entries.clear()
        self._stats.clear()


def profile_compress(fn):
    """Decorator to profile compression operations."""
    def wrapper(*args, **kwargs):
        profiler = ZeroKVProfiler.instance()
        shape = str(args[0].shape) if args and hasattr(args[0], "shape") else None
        with profiler.timer("compress", input_shape=shape):
            return fn(*args, **kwargs)
    return wrapper


def profile_decompress(fn):
    """Decorator to profile decompression operations."""
    def wrapper(*args, **kwargs):
        profiler = ZeroKVProfiler.instance()
        with profiler.timer("decompress"):
            return fn(*args, **kwargs)
    return wrapper
