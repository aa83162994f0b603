"""
Closed-loop / online adaptation helpers for polar prototypes used in ZeroKV compression.

Default ``compress_kv_tensor`` regenerates prototypes from a fixed ``layer_seed``. When you want
session-local adaptation, keep a mutable ``proto`` tensor, pass it into this module’s update
step after observing new key/value geometry, then (in a custom integration) supply the updated
``proto`` as an override in your compression path.

Runtime integration: when ``online_adapt=True`` on :class:`zerokv.cache_layer.ZeroKVNeoQuantizedLayer`,
flush uses :func:`update_proto_from_kv_rest` and passes the current prototype matrix into
:func:`zerokv.quant.compress_kv_tensor` (stored as ``polar_proto_fp16`` in the block for bit-exact decode).
Optional ``online_adapt_reset_interval`` copies prototypes back to the initial seed snapshot every N flushes.
"""

from __future__ import annotations

from typing import Optional, Tuple

import torch
import torch.nn.functional as F


def assign_nearest_proto(proto: torch.Tensor, x_unit: torch.Tensor) -> torch.Tensor:
    """
    ``proto``: (P, D) unit-norm rows. ``x_unit``: (N, D) unit-norm rows.
    Returns LongTensor (N,) of nearest prototype indices by cosine similarity.
    """
    sim = x_unit @ proto.t()
    return sim.argmax(dim=-1)


def ema_proto_update(
    proto: torch.Tensor,
    x_unit: torch.Tensor,
    lr: float,
    *,
    momentum_buffer: Optional[torch.Tensor] = None,
    momentum: float = 0.9,
) -> Tuple[torch.Tensor, torch.Tensor]:
    """
    One online step: for each prototype, move toward the mean direction of vectors assigned to it.

    Returns ``(proto_new, momentum_buffer_out)`` with rows re-normalized to the sphere.
    """
    if lr <= 0:
        raise ValueError("lr must be positive")
    p, d = proto.shape
    n = x_unit.shape[0]
    if x_unit.shape[-1] != d:
        raise ValueError("proto and x_unit last dim must match")

    idx = assign_nearest_proto(proto, x_unit)
    delta = proto.new_zeros((p, d))
    counts = proto.new_zeros((p,))
    for j in range(p):
        mask = idx == j
        if not bool(mask.any()):
            continue
        mean_dir = x_unit[mask].mean(dim=0)
        if float(mean_dir.norm().item()) < 1e-8:
            continue
        mean_dir = F.normalize(mean_dir, dim=-1)
        delta[j] = mean_dir - proto[j]
        counts[j] = float(mask.sum().item())

    if momentum_buffer is None:
        momentum_buffer = proto.new_zeros((p, d))
    momentum_buffer = momentum * momentum_buffer + (1.0 - momentum) * delta
    proto_new = F.normalize(proto + lr * momentum_buffer, dim=-1)
    return proto_new, momentum_buffer


def update_proto_from_kv_rest(
    proto: torch.Tensor,
    x_rest_flat: torch.Tensor,
    lr: float,
    *,
    momentum_buffer: Optional[torch.Tensor] = None,
    momentum: float = 0.9,
    eps: float = 1e-8,
) -> Tuple[torch.Tensor, torch.Tensor]:
    """
    ``x_rest_flat``: (N, D_rest) as in the polar+QJL pipeline **before** optional FWHT padding.
    Converts rows to unit directions then calls :func:`ema_proto_update`.
    """
    r = x_rest_flat.norm(dim=-1, keepdim=True).clamp(min=eps)
    x_unit = x_rest_flat / r
    return ema_proto_update(
        proto,
        x_unit,
        lr,
        momentum_buffer=momentum_buffer,
        momentum=momentum,
    )
