"""GPU device resolution — the hard capability gate for every ``device=``
kwarg in the library.

``torch`` is a required dependency (installed by ``pip install
object-remove``, both CPU and GPU support come from the same install --
there's no separate ``[gpu]`` extra), imported lazily inside
:func:`resolve_device` and inside each ``*_gpu.py``/``torch_*.py`` module
rather than at package top level, so files that don't touch the GPU path
don't carry that import.

``"auto"`` is the default everywhere: use a GPU (CUDA on NVIDIA, MPS on
Apple Silicon) when one is available. When none is, ``"auto"`` falls back
to the plain NumPy path rather than torch's CPU backend -- with no GPU to
exploit, torch-CPU has no advantage over the already-vectorised NumPy
implementation and costs a float32 precision downgrade for nothing.
Explicit ``"cpu"`` still forces torch's CPU backend (useful for validating
the torch code path without GPU hardware); explicit ``"cuda"``/``"mps"``
are deliberate requests and raise clearly if that backend isn't available,
rather than silently falling back. Pass ``device=None`` to force the plain
NumPy path regardless of what hardware is present.
"""

from __future__ import annotations

from typing import Optional


def resolve_device(requested: Optional[str]):
    """``None`` -> ``None`` (force the plain NumPy path).

    ``"auto"`` (the default everywhere) -> ``torch.device("cuda")``/
    ``"mps"`` if a GPU is available, else ``None`` (plain NumPy).

    ``"cuda"``/``"mps"``/``"cpu"`` -> that exact torch backend, raising if
    it isn't available -- an explicit request, not best-effort.
    """
    if requested is None:
        return None
    import torch

    if requested == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_available():
            return torch.device("mps")
        return None

    if requested == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device='cuda' requested but no CUDA GPU is available.")
    if requested == "mps" and not torch.backends.mps.is_available():
        raise RuntimeError("device='mps' requested but Apple MPS is not available.")
    if requested not in ("cuda", "mps", "cpu"):
        raise RuntimeError(f"Unknown device {requested!r}; expected "
                           "one of None, 'auto', 'cuda', 'mps', 'cpu'.")
    return torch.device(requested)
