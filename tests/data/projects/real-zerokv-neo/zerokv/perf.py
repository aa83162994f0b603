"""
Optional PyTorch 2.x compile for hot paths (FWHT + polar/QJL core).
Set ``ZEROKV_TORCH_COMPILE=1`` to enable (experimental).

Optional: ``ZEROKV_TORCH_COMPILE_DYNAMIC=1`` passes ``dynamic=True`` for varying
batch×seq (may compile more kernels; try if you see recompiles).

Optional decompress compile: set ``ZEROKV_TORCH_COMPILE_DECOMPRESS=1`` (experimental; see ``zerokv.quant``).
"""

from __future__ import annotations

import os
from typing import Callable, TypeVar

import torch

F = TypeVar("F", bound=Callable)


def _compile_enabled() -> bool:
    return os.environ.get("ZEROKV_TORCH_COMPILE", "").lower() in ("1", "true", "yes")


def _compile_dynamic() -> bool:
    return os.environ.get("ZEROKV_TORCH_COMPILE_DYNAMIC", "").lower() in ("1", "true", "yes")


def maybe_torch_compile(fn: F) -> F:
    if not _compile_enabled():
        return fn
    if not hasattr(torch, "compile"):
        return fn
    opts: dict = {"fullgraph": False}
    if _compile_dynamic():
        opts["dynamic"] = True
    return torch.compile(fn, **opts)  # type: ignore[return-value]


def _decompress_compile_enabled() -> bool:
    return os.environ.get("ZEROKV_TORCH_COMPILE_DECOMPRESS", "").lower() in ("1", "true", "yes")


def maybe_torch_compile_decompress(fn: F) -> F:
    if not _decompress_compile_enabled():
        return fn
    if not hasattr(torch, "compile"):
        return fn
    opts: dict = {"fullgraph": False}
    if _compile_dynamic():
        opts["dynamic"] = True
    return torch.compile(fn, **opts)  # type: ignore[return-value]
