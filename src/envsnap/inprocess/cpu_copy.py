"""A copy of a model on the CPU in another float dtype, for the float64 golden and its fp32 twin.

The copy is made tensor by tensor straight onto the CPU (``deepcopy`` with each parameter and buffer
given in its memo already converted), so a model on a GPU is never duplicated in GPU memory first,
and weights tied in the model stay tied in the copy. The model itself is left as it was.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import psutil
import torch

MEMORY_SHARE = 0.25
"""A copy may take at most this share of the memory the machine has available now: the golden is a
check, and must never push the user's job (or the machine) into swap."""


def copy_bytes(model: torch.nn.Module, dtype: torch.dtype) -> int:
    """What a CPU copy of ``model``'s parameters and buffers in ``dtype`` takes (floats in ``dtype``)."""
    size = torch.empty((), dtype=dtype).element_size()
    tensors = [*model.parameters(), *model.buffers()]
    unique = {id(t): t for t in tensors}.values()
    return sum(t.numel() * (size if t.is_floating_point() else t.element_size()) for t in unique)


def why_not(model: torch.nn.Module, dtype: torch.dtype) -> str | None:
    """Why no CPU copy of ``model`` in ``dtype`` can be made here (None: it can)."""
    tensors = [*model.parameters(), *model.buffers()]
    if any(t.device.type == "meta" for t in tensors):
        return "the model has meta tensors (no values to copy)"
    if any(t.is_quantized or t.is_complex() for t in tensors):
        return "the model holds quantized or complex tensors (no float copy of them is the same model)"
    need = copy_bytes(model, dtype)
    available = psutil.virtual_memory().available
    if need > MEMORY_SHARE * available:
        return (
            f"a {torch.empty((), dtype=dtype).dtype} copy of the model takes {need / 2**20:,.0f} MiB, more "
            f"than {MEMORY_SHARE:.0%} of the {available / 2**20:,.0f} MiB available"
        )
    return None


def cpu_copy(model: torch.nn.Module, dtype: torch.dtype) -> torch.nn.Module:
    """``model`` deep-copied onto the CPU, its floating parameters and buffers in ``dtype``.

    Check ``why_not`` first: this does not (meta tensors would copy as meta).
    """
    memo: dict[int, Any] = {}
    for param in model.parameters():
        if id(param) not in memo:
            memo[id(param)] = torch.nn.Parameter(_converted(param, dtype), requires_grad=False)
    for buffer in model.buffers():
        if id(buffer) not in memo:
            memo[id(buffer)] = _converted(buffer, dtype)
    with torch.no_grad():
        return copy.deepcopy(model, memo)


def _converted(tensor: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    moved = tensor.detach().to("cpu", copy=True)
    return moved.to(dtype) if moved.is_floating_point() else moved


def upcast(value: Any, dtype: torch.dtype = torch.float64) -> Any:
    """``value`` (an argument of a recorded call) on the CPU, its floating tensors in ``dtype``
    (lossless from the recorded dtype to float64: torchtitan's rule, generate in low precision once,
    upcast for the golden)."""
    if isinstance(value, torch.Tensor):  # always a copy: a model that writes into its input
        floating = value.is_floating_point()  # must not change the recorded one for the next replay
        return value.detach().to(device="cpu", dtype=dtype if floating else None, copy=True)
    if isinstance(value, list):
        return [upcast(v, dtype) for v in value]
    if isinstance(value, tuple):
        return tuple(upcast(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: upcast(v, dtype) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: upcast(getattr(value, f.name), dtype) for f in dataclasses.fields(value) if f.init}
        return dataclasses.replace(value, **changes)
    return value
