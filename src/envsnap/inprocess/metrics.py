"""How far one tensor is from another (torch side): the metrics Polygraphy, dynamo and ORT report.

max-abs, max-rel, RMSE, cosine similarity and SQNR in dB (``20·log10(‖expected‖/‖actual−expected‖)``,
ORT's qdq_loss_debug default), over finite positions, computed in float64 on the actual value's
device. NaN and ±Inf positions are compared first: a mismatch there fails regardless of tolerance.
When only the sketch of the reference was kept, the same metrics are computed over the sketch
(``basis="sample"``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from envsnap.inprocess.tensor_stats import sketch_positions


@dataclass
class Metrics:
    max_abs: float
    max_rel: float
    rmse: float
    cosine: float | None
    sqnr_db: float | None
    """None: the signal is zero; inf: identical."""
    outside: int
    """Elements beyond atol + rtol·|expected|."""
    compared: int
    nonfinite_mismatch: int = 0
    """Positions where NaN/±Inf of actual and expected differ."""


def _finish(diff: torch.Tensor, act: torch.Tensor, exp: torch.Tensor, outside: int, bad: int) -> Metrics:
    n = diff.numel()
    if n == 0:
        return Metrics(0.0, 0.0, 0.0, None, None, outside, 0, bad)
    absdiff = diff.abs()
    max_abs = float(absdiff.max())
    rel = absdiff / exp.abs()
    rel = torch.where(absdiff == 0, torch.zeros_like(rel), rel)
    max_rel = float(rel.max())
    rmse = float(torch.sqrt((diff * diff).mean()))
    norm_e = float(torch.linalg.vector_norm(exp))
    norm_a = float(torch.linalg.vector_norm(act))
    norm_d = float(torch.linalg.vector_norm(diff))
    cosine = float((act * exp).sum()) / (norm_a * norm_e) if norm_a and norm_e else None
    if norm_e == 0:
        sqnr = None if norm_d else math.inf
    else:
        sqnr = math.inf if norm_d == 0 else 20 * math.log10(norm_e / norm_d)
    return Metrics(max_abs, max_rel, rmse, cosine, sqnr, outside, n, bad)


def tensor_metrics(
    actual: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float, scale: float = 0.0
) -> Metrics:
    """Metrics of ``actual`` against ``expected`` (same shape), over positions finite in both.

    An element is outside when ``|actual − expected| > atol + rtol·(|expected| + scale)``: ``scale``
    (the reference tensor's RMS) puts the tolerance in the tensor's own units, so an element near
    zero in a tensor of large values is allowed the rounding its neighbours' magnitudes bring."""
    expected = expected.detach().to(actual.device)
    if actual.dtype == expected.dtype and torch.equal(actual.detach(), expected):
        # Bit-identical (the usual verdict on an unchanged stack): one pass instead of a dozen.
        signal = bool(expected.any())
        return Metrics(0.0, 0.0, 0.0, 1.0 if signal else None, math.inf, 0, actual.numel(), 0)
    act = actual.detach().reshape(-1).to(torch.float64)
    exp = expected.reshape(-1).to(dtype=torch.float64)
    fin_a, fin_e = torch.isfinite(act), torch.isfinite(exp)
    same_nonfinite = (torch.isnan(act) & torch.isnan(exp)) | (~fin_a & ~fin_e & (act == exp))
    bad = int((~(fin_a & fin_e) & ~same_nonfinite).sum())
    both = fin_a & fin_e
    act, exp = act[both], exp[both]
    diff = act - exp
    outside = int((diff.abs() > atol + rtol * (exp.abs() + scale)).sum())
    return _finish(diff, act, exp, outside, bad)


def sketch_of(tensor: torch.Tensor) -> list[float]:
    """The sketch values of a live tensor (same positions as tensor_stats)."""
    flat = tensor.detach().reshape(-1)
    positions = torch.tensor(sketch_positions(flat.numel()), device=flat.device)
    return [float(v) for v in flat[positions].to(torch.float64).cpu().tolist()]


def sketch_metrics(
    actual: Sequence[float | None],
    expected: Sequence[float | None],
    rtol: float,
    atol: float,
    scale: float = 0.0,
) -> Metrics:
    """Metrics over two sketches (None = not finite; a None facing a number is a mismatch)."""
    pairs = [(a, e) for a, e in zip(actual, expected, strict=False) if a is not None and e is not None]
    bad = sum(1 for a, e in zip(actual, expected, strict=False) if (a is None) != (e is None))
    bad += abs(len(actual) - len(expected))
    if not pairs:
        return Metrics(0.0, 0.0, 0.0, None, None, 0, 0, bad)
    act = torch.tensor([a for a, _ in pairs], dtype=torch.float64)
    exp = torch.tensor([e for _, e in pairs], dtype=torch.float64)
    diff = act - exp
    outside = int((diff.abs() > atol + rtol * (exp.abs() + scale)).sum())
    return _finish(diff, act, exp, outside, bad)


def finite_or_none(values: Sequence[float]) -> list[float | None]:
    return [v if math.isfinite(v) else None for v in values]
