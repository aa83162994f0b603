"""
Timing and profiling utilities.

Mirrors the original PETLS Profile class but is GPU-aware:
- Uses torch.cuda.Event for GPU timing when available.
- Falls back to time.perf_counter on CPU.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass, field
from typing import List

import numpy as np
import torch


class Timer:
    """Simple CPU timer."""

    def __init__(self) -> None:
        self._start: float | None = None
        self.duration: float = 0.0

    def start(self) -> None:
        self._start = time.perf_counter()

    def stop(self) -> float:
        if self._start is None:
            raise RuntimeError("Timer.stop() called before start()")
        self.duration = time.perf_counter() - self._start
        self._start = None
        return self.duration


class CudaTimer:
    """GPU timer using CUDA events for accurate device-side timing."""

    def __init__(self, device: torch.device | str = "cuda") -> None:
        self.device = torch.device(device)
        self._start_event: torch.cuda.Event | None = None
        self._end_event: torch.cuda.Event | None = None
        self.duration: float = 0.0

    def start(self) -> None:
        with torch.cuda.device(self.device):
            self._start_event = torch.cuda.Event(enable_timing=True)
            self._end_event = torch.cuda.Event(enable_timing=True)
            self._start_event.record()

    def stop(self) -> float:
        if self._start_event is None:
            raise RuntimeError("CudaTimer.stop() called before start()")
        if self._end_event is None:
            raise RuntimeError("CudaTimer.stop() called before start()")
        with torch.cuda.device(self.device):
            self._end_event.record()
            torch.cuda.synchronize(self.device)
            # Profile durations use seconds, matching Timer.
            self.duration = self._start_event.elapsed_time(self._end_event) / 1000.0
        self._start_event = None
        self._end_event = None
        return self.duration


@dataclass
class Profile:
    """
    Collects timing and metadata across multiple spectra() calls.

    Fields match the original PETLS Profile CSV output:
      dim, filtration_a, filtration_b,
      duration_all, duration_eigs, duration_L,
      L_rows, betti, lambda
    """

    dims: List[int] = field(default_factory=list)
    filtration_a: List[float] = field(default_factory=list)
    filtration_b: List[float] = field(default_factory=list)
    durations_all: List[float] = field(default_factory=list)
    durations_eigs: List[float] = field(default_factory=list)
    durations_L: List[float] = field(default_factory=list)
    L_rows: List[int] = field(default_factory=list)
    bettis: List[int] = field(default_factory=list)
    lambdas: List[float] = field(default_factory=list)
    zero_atol: float = 1e-8
    zero_rtol: float = 1e-7
    device: torch.device | str | None = None

    _timer_all: Timer | CudaTimer = field(default_factory=Timer)
    _timer_eigs: Timer | CudaTimer = field(default_factory=Timer)
    _timer_L: Timer | CudaTimer = field(default_factory=Timer)

    def __post_init__(self) -> None:
        if self.zero_atol < 0 or self.zero_rtol < 0:
            raise ValueError("zero_atol and zero_rtol must be non-negative")
        resolved_device = (
            torch.device(self.device) if self.device is not None else torch.device("cpu")
        )
        self.device = resolved_device
        if resolved_device.type == "cuda":
            if not torch.cuda.is_available():
                raise RuntimeError("CUDA profiling requested but CUDA is unavailable")
            self._timer_all = CudaTimer(resolved_device)
            self._timer_eigs = CudaTimer(resolved_device)
            self._timer_L = CudaTimer(resolved_device)
        else:
            self._timer_all = Timer()
            self._timer_eigs = Timer()
            self._timer_L = Timer()

    def start_all(self) -> None:
        self._timer_all.start()

    def start_eigs(self) -> None:
        self._timer_eigs.start()

    def start_L(self) -> None:
        self._timer_L.start()

    def stop_all(self) -> None:
        self.durations_all.append(self._timer_all.stop())

    def stop_eigs(self) -> None:
        self.durations_eigs.append(self._timer_eigs.stop())

    def stop_L(self) -> None:
        self.durations_L.append(self._timer_L.stop())

    def wrap_up(
        self,
        dim: int,
        a: float,
        b: float,
        L_rows: int,
        eigs: torch.Tensor | list[float],
    ) -> None:
        """Record metadata for one completed spectra computation."""
        self.dims.append(dim)
        self.filtration_a.append(a)
        self.filtration_b.append(b)
        self.L_rows.append(L_rows)

        eig_array = (
            eigs.detach().cpu().numpy() if isinstance(eigs, torch.Tensor) else np.array(eigs)
        )

        spectral_scale = float(np.max(np.abs(eig_array))) if eig_array.size else 0.0
        tol = self.zero_atol + self.zero_rtol * spectral_scale
        absolute = np.abs(eig_array)
        betti = int(np.sum(absolute <= tol))
        nonzeros = absolute[absolute > tol]
        least = float(nonzeros.min()) if len(nonzeros) > 0 else 0.0

        self.bettis.append(betti)
        self.lambdas.append(least)

    def to_csv(self, filename: str) -> None:
        """Write profile to CSV."""
        fieldnames = [
            "dim",
            "filtration_a",
            "filtration_b",
            "duration_all",
            "duration_eigs",
            "duration_L",
            "L_rows",
            "betti",
            "lambda",
        ]
        columns = [
            self.dims,
            self.filtration_a,
            self.filtration_b,
            self.durations_all,
            self.durations_eigs,
            self.durations_L,
            self.L_rows,
            self.bettis,
            self.lambdas,
        ]
        with open(filename, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(fieldnames)
            writer.writerows(zip(*columns))
