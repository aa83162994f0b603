"""Summaries of tensors (torch side of record/verify): stats, a value sketch, and the walk over outputs.

Stats are computed on the tensor's own device in float32 (float64 for float64 tensors) and brought
to the host in one transfer, so a module output costs a handful of reductions and one sync, not a
copy of the tensor. The sketch takes values at evenly spaced flat positions: cheap, deterministic,
and comparable elementwise on the other machine even when the tensor itself was not kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import torch

from envsnap.inprocess.bundle_model import Stats

SKETCH_SIZE = 64


def dtype_name(dtype: torch.dtype) -> str:
    """ "float32" for torch.float32."""
    return str(dtype).removeprefix("torch.")


def sketch_positions(numel: int, size: int = SKETCH_SIZE) -> list[int]:
    """Flat indices of the sketch: evenly spaced, first and last included, no repeats."""
    if numel <= size:
        return list(range(numel))
    return sorted({round(i * (numel - 1) / (size - 1)) for i in range(size)})


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, torch.Tensor]]:
    """(output path, tensor) for every tensor in a nested output: "" for a tensor, "/0", "/logits"."""
    if isinstance(value, torch.Tensor):
        yield prefix, value
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from leaves(item, f"{prefix}/{index}")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from leaves(item, f"{prefix}/{key}")


def _floats(values: list[float]) -> list[float | None]:
    return [v if v == v and abs(v) != float("inf") else None for v in values]


def tensor_stats(tensor: torch.Tensor) -> Stats:
    """Shape, dtype, finite count, min/max/mean/std/L2 over finite values, and the sketch."""
    t = tensor.detach()
    shape = tuple(int(d) for d in t.shape)
    base = {"shape": shape, "dtype": dtype_name(t.dtype), "device": t.device.type, "numel": t.numel()}
    if t.device.type == "meta" or t.is_complex() or t.numel() == 0:
        return Stats(**base)  # type: ignore[arg-type]
    work = t.to(torch.float64 if t.dtype == torch.float64 else torch.float32).reshape(-1)
    finite = torch.isfinite(work)
    nan = torch.isnan(work)
    posinf = work == float("inf")
    clean = torch.where(finite, work, torch.zeros((), dtype=work.dtype, device=work.device))
    count = finite.sum()
    big = torch.finfo(work.dtype).max
    low = torch.where(finite, work, torch.full((), big, dtype=work.dtype, device=work.device)).min()
    high = torch.where(finite, work, torch.full((), -big, dtype=work.dtype, device=work.device)).max()
    denom = count.clamp(min=1).to(work.dtype)
    mean = clean.sum() / denom
    var = (
        torch.where(finite, clean - mean, torch.zeros((), dtype=work.dtype, device=work.device)) ** 2
    ).sum()
    std = (var / (count - 1).clamp(min=1).to(work.dtype)).sqrt()
    l2 = torch.linalg.vector_norm(clean)
    positions = torch.tensor(sketch_positions(work.numel()), device=work.device)
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
        **base,  # type: ignore[arg-type]
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
