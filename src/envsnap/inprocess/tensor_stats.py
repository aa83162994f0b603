"""Summaries of tensors (torch side of record/verify): stats, a value sketch, and the walk over outputs.

Stats are computed on the tensor's own device in float32 (float64 for float64 tensors) and brought
to the host in one transfer, so a module output costs a handful of reductions and one sync, not a
copy of the tensor. The sketch takes values at evenly spaced flat positions: cheap, deterministic,
and comparable elementwise on the other machine even when the tensor itself was not kept.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from typing import Any

import torch

from envsnap.inprocess.bundle.model import Stats

SKETCH_SIZE = 64


def dtype_name(dtype: torch.dtype) -> str:
    """ "float32" for torch.float32."""
    return str(dtype).removeprefix("torch.")


def sketch_positions(numel: int, size: int = SKETCH_SIZE) -> list[int]:
    """Flat indices of the sketch: evenly spaced, first and last included, no repeats."""
    if numel <= size:
        return list(range(numel))
    return sorted({round(i * (numel - 1) / (size - 1)) for i in range(size)})


def is_dataclass_value(value: Any) -> bool:
    """A dataclass instance (not the class itself)."""
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, torch.Tensor]]:
    """(output path, tensor) for every tensor in a nested output: "" for a tensor, "/0", "/logits".

    Lists, tuples, mappings (HF ModelOutput is an OrderedDict) and dataclass instances (by field).
    """
    if isinstance(value, torch.Tensor):
        yield prefix, value
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from leaves(item, f"{prefix}/{index}")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from leaves(item, f"{prefix}/{key}")
    elif is_dataclass_value(value):
        for item in dataclasses.fields(value):
            yield from leaves(getattr(value, item.name, None), f"{prefix}/{item.name}")


def _floats(values: list[float]) -> list[float | None]:
    return [v if v == v and abs(v) != float("inf") else None for v in values]


def tensor_stats(tensor: torch.Tensor) -> Stats:
    """Shape, dtype, finite count, min/max/mean/std/L2 over finite values, and the sketch."""
    t = tensor.detach()
    shape = tuple(int(d) for d in t.shape)
    base: dict[str, Any] = {
        "shape": shape,
        "dtype": dtype_name(t.dtype),
        "device": t.device.type,
        "numel": t.numel(),
    }
    if t.device.type == "meta" or t.is_complex() or t.numel() == 0:
        return Stats(**base)
    work = t.to(torch.float64 if t.dtype == torch.float64 else torch.float32).reshape(-1)
    positions = torch.tensor(sketch_positions(work.numel()), device=work.device)
    total = work.sum()
    # Fast path, the common case: a finite sum means no NaN/Inf (barring overflow, which takes the
    # slow path), so four cheap passes replace the masked ones. One host sync decides.
    if bool(torch.isfinite(total)):
        low, high = torch.aminmax(work)
        # Σx² by a BLAS dot (one fast pass); std and ‖x‖ follow on the host in float64. std loses
        # digits when |mean| ≫ std, which is fine for a summary (values are compared on the sketch).
        squares = torch.dot(work, work)
        head = torch.stack([low, high, total, squares])
        values = torch.cat([head, work[positions]]).cpu().tolist()  # one transfer
        n = work.numel()
        mean = values[2] / n
        var = max(values[3] - n * mean * mean, 0.0) / max(n - 1, 1)
        spread, l2 = math.sqrt(var), math.sqrt(max(values[3], 0.0))
        return Stats(
            **base,
            finite=t.numel(),
            nan=0,
            posinf=0,
            neginf=0,
            min=values[0],
            max=values[1],
            mean=mean,
            std=spread,
            l2=l2,
            sketch=tuple(_floats(values[4:])),
        )
    return _masked_stats(t, work, positions, base)


def _masked_stats(
    t: torch.Tensor, work: torch.Tensor, positions: torch.Tensor, base: dict[str, Any]
) -> Stats:
    """Stats over the finite elements only, with NaN/±Inf counted (the slow path)."""
    finite = torch.isfinite(work)
    nan = torch.isnan(work)
    posinf = work == float("inf")
    zero = torch.zeros((), dtype=work.dtype, device=work.device)
    clean = torch.where(finite, work, zero)
    count = finite.sum()
    big = torch.finfo(work.dtype).max
    low = torch.where(finite, work, torch.full((), big, dtype=work.dtype, device=work.device)).min()
    high = torch.where(finite, work, torch.full((), -big, dtype=work.dtype, device=work.device)).max()
    denom = count.clamp(min=1).to(work.dtype)
    mean = clean.sum() / denom
    var = (torch.where(finite, clean - mean, zero) ** 2).sum()
    std = (var / (count - 1).clamp(min=1).to(work.dtype)).sqrt()
    l2 = torch.linalg.vector_norm(clean)
    head = torch.stack(
        [
            count.to(work.dtype),
            nan.sum().to(work.dtype),
            posinf.sum().to(work.dtype),
            low,
            high,
            mean,
            std,
            l2,
        ]
    )
    values = torch.cat([head, work[positions]]).cpu().tolist()  # one transfer
    n_finite, n_nan, n_posinf = (int(v) for v in values[:3])
    has_finite = n_finite > 0
    return Stats(
        **base,
        finite=n_finite,
        nan=n_nan,
        posinf=n_posinf,
        neginf=t.numel() - n_finite - n_nan - n_posinf,
        min=values[3] if has_finite else None,
        max=values[4] if has_finite else None,
        mean=values[5] if has_finite else None,
        std=values[6] if has_finite else None,
        l2=values[7],
        sketch=tuple(_floats(values[8:])),
    )


def host_copy(tensor: torch.Tensor) -> torch.Tensor:
    """A contiguous CPU copy that owns its memory (safetensors refuses shared or strided storage)."""
    return tensor.detach().to("cpu", copy=True).contiguous()


def nbytes(tensor: torch.Tensor) -> int:
    return int(tensor.numel() * tensor.element_size())


KEEPABLE = {
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
}
"""Dtypes stored as safetensors; others (complex, fp8 variants) are kept as stats only."""


def keepable(tensor: torch.Tensor) -> bool:
    return tensor.device.type != "meta" and tensor.dtype in KEEPABLE
