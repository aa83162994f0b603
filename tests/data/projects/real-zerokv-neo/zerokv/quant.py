"""
Adaptive Polar + QJL residual compression for KV tensors.
Vectorized PyTorch (optional torch.compile via zerokv.perf).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import torch
import torch.nn.functional as F

from zerokv.hadamard import MAX_FWHT_REST_DIM, fwht_normalized_last_dim, rest_work_dim_and_hadamard
from zerokv.perf import maybe_torch_compile, maybe_torch_compile_decompress


def _pack_signs(signs: torch.Tensor) -> torch.Tensor:
    """signs: bool [N, K] -> uint8 [N, ceil(K/8)]"""
    N, K = signs.shape
    n_bytes = (K + 7) // 8
    pad = n_bytes * 8 - K
    if pad:
        signs = torch.cat([signs, torch.zeros(N, pad, dtype=torch.bool, device=signs.device)], dim=1)
    g = signs.view(N, n_bytes, 8)
    weights = (2 ** torch.arange(8, device=signs.device, dtype=torch.int32)).view(1, 1, 8)
    return (g.to(torch.int32) * weights).sum(dim=-1).to(torch.uint8)


def _pack_int2(values: torch.Tensor) -> torch.Tensor:
    """Pack int2 values [-2,1] → uint8. 4 values per byte. [N, K] -> [N, ceil(K/4)]"""
    N, K = values.shape
    n_bytes = (K + 3) // 4
    pad = n_bytes * 4 - K
    if pad:
        values = torch.cat([values, torch.zeros(N, pad, dtype=values.dtype, device=values.device)], dim=1)
    v = (values + 2).to(torch.uint8)
    g = v.view(N, n_bytes, 4)
    weights = (4 ** torch.arange(4, device=values.device, dtype=torch.int32)).view(1, 1, 4)
    return (g.to(torch.int32) * weights).sum(dim=-1).to(torch.uint8)


def _unpack_int2(packed: torch.Tensor, k: int) -> torch.Tensor:
    """Unpack uint8 [N, P] → int2 [N, k]."""
    N, P = packed.shape
    pb = packed.to(torch.int32)
    vals = []
    for i in range(4):
        shift = i * 2
        nibble = ((pb >> shift) & 3).to(torch.int8) - 2
        vals.append(nibble.unsqueeze(-1))
    flat = torch.cat(vals, dim=-1).reshape(N, P * 4)
    return flat[:, :k]


def _pack_int4(values: torch.Tensor) -> torch.Tensor:
    """Pack int4 values [0,15] → uint8. 2 values per byte. [N, K] -> [N, ceil(K/2)]"""
    N, K = values.shape
    n_bytes = (K + 1) // 2
    pad = n_bytes * 2 - K
    if pad:
        values = torch.cat([values, torch.zeros(N, pad, dtype=values.dtype, device=values.device)], dim=1)
    v = values.to(torch.uint8)
    g = v.view(N, n_bytes, 2)
    weights = torch.tensor([1, 16], device=values.device, dtype=torch.int32).view(1, 1, 2)
    return (g.to(torch.int32) * weights).sum(dim=-1).to(torch.uint8)


def _unpack_int4(packed: torch.Tensor, k: int) -> torch.Tensor:
    """Unpack uint8 [N, P] → int4 [N, k] (values in [0,15])."""
    N, P = packed.shape
    pb = packed.to(torch.int32)
    lo = (pb & 0xF).unsqueeze(-1)
    hi = ((pb >> 4) & 0xF).unsqueeze(-1)
    flat = torch.cat([lo, hi], dim=-1).reshape(N, P * 2)
    return flat[:, :k]


def _unpack_signs(packed: torch.Tensor, k: int) -> torch.Tensor:
    """uint8 [N, P] -> bool [N, k] (matches _pack_signs column-major within each byte)."""
    N, P = packed.shape
    pb = packed.to(torch.int32)
    bits = torch.arange(8, device=packed.device, dtype=torch.int32)
    # [N, P, 8] same order as legacy nested loops: for p in P, for b in 8
    expanded = ((pb.unsqueeze(-1) >> bits) & 1).bool()
    flat = expanded.reshape(N, P * 8)
    return flat[:, :k]


def _proto_matrix(dim: int, n_proto: int, device: torch.device, dtype: torch.dtype, seed: int) -> torch.Tensor:
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    p = torch.randn(n_proto, dim, generator=g, device=device, dtype=dtype)
    p = F.normalize(p, dim=-1)
    return p


def _qjl_matrix(dim: int, k: int, device: torch.device, dtype: torch.dtype, seed: int) -> torch.Tensor:
    g = torch.Generator(device=device)
    g.manual_seed(seed + 7919)
    r = torch.randn(k, dim, generator=g, device=device, dtype=dtype)
    r = r / (r.norm(dim=-1, keepdim=True) + 1e-8)
    return r


def _compress_polar_qjl_tensors(
    x_work: torch.Tensor,
    proto: torch.Tensor,
    Rm: torch.Tensor,
    r_bits: int,
    qjl_dim: int,
    residual_bits: int = 1,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """
    Polar + QJL bulk (random proto/Rm supplied outside for torch.compile stability).
    residual_bits: 1=sign packing (default), 2=INT4, 4=INT2 quantization of residual projections.
    Returns: r_idx_u8, ti_u8, packed_signs, lr_min, lr_max, res_norm_max, res_norm_quant_u8, proj_min, proj_max
    """
    r = x_work.norm(dim=-1).clamp(min=1e-8)
    log_r = r.log()
    lr_min = log_r.min()
    lr_max = log_r.max()
    span = (lr_max - lr_min).clamp(min=1e-6)
    r_levels = 2**r_bits
    r_idx = ((log_r - lr_min) / span * (r_levels - 1)).round().long().clamp(0, r_levels - 1)
    r_recon = torch.exp(lr_min + r_idx.float() / (r_levels - 1) * span).unsqueeze(-1)

    u = x_work / r.unsqueeze(-1)
    cos = u @ proto.t()
    ti = cos.argmax(dim=-1)
    u_hat = proto[ti]
    base = r_recon * u_hat

    residual = x_work - base
    res_norm = residual.norm(dim=-1, keepdim=True).clamp(min=1e-8)
    proj = residual @ Rm.t()

    proj_min = torch.tensor(0.0, device=x_work.device)
    proj_max = torch.tensor(1.0, device=x_work.device)

    if residual_bits == 1:
        signs = proj >= 0
        packed = _pack_signs(signs)
        res_norm_flat = res_norm.squeeze(-1)
        res_norm_max = res_norm_flat.max().clamp(min=1e-8)
        res_norm_quant = (res_norm_flat / res_norm_max * 255.0).round().clamp(0, 255).to(torch.uint8)
    elif residual_bits == 2:
        levels = 4
        proj_min = proj.min()
        proj_max = proj.max()
        proj_span = (proj_max - proj_min).clamp(min=1e-6)
        q = ((proj - proj_min) / proj_span * (levels - 1)).round().long().clamp(0, levels - 1)
        packed = _pack_int2(q)
        res_norm_max = torch.tensor(0.0, device=x_work.device)
        res_norm_quant = torch.zeros(q.shape[:-1], dtype=torch.uint8, device=x_work.device)
    elif residual_bits == 4:
        levels = 16
        proj_min = proj.min()
        proj_max = proj.max()
        proj_span = (proj_max - proj_min).clamp(min=1e-6)
        q = ((proj - proj_min) / proj_span * (levels - 1)).round().long().clamp(0, levels - 1)
        packed = _pack_int4(q)
        res_norm_max = torch.tensor(0.0, device=x_work.device)
        res_norm_quant = torch.zeros(q.shape[:-1], dtype=torch.uint8, device=x_work.device)
    else:
        signs = proj >= 0
        packed = _pack_signs(signs)
        res_norm_flat = res_norm.squeeze(-1)
        res_norm_max = res_norm_flat.max().clamp(min=1e-8)
        res_norm_quant = (res_norm_flat / res_norm_max * 255.0).round().clamp(0, 255).to(torch.uint8)
    return (
        r_idx.to(torch.uint8),
        ti.to(torch.uint8),
        packed,
        lr_min,
        lr_max,
        res_norm_max,
        res_norm_quant,
        proj_min,
        proj_max,
    )


_compress_polar_impl = maybe_torch_compile(_compress_polar_qjl_tensors)


def empty_prefix_compressed_block(ref: torch.Tensor) -> CompressedBlock:
    """
    Placeholder block whose decompressed tensor has shape ``[B, H, 0, D]`` (empty sequence axis).
    Used so the first prefill can live entirely in the FP tail without an initial lossy quantize step.
    """
    B, H, _, D = ref.shape
    z = ref.new_zeros((B, H, 0, D))
    return CompressedBlock(
        {
            "zerokv_empty_prefix": True,
            "shape": z.shape,
            "_ref": ref.flatten()[:0],
        }
    )


def kv_work_dimensions(
    head_dim: int,
    outlier_fraction: float,
    hadamard_rest: bool,
    *,
    max_fwht_rest_dim: int = MAX_FWHT_REST_DIM,
) -> Tuple[int, int, bool]:
    """
    Rest-subspace size before/after FWHT padding, matching :func:`compress_kv_tensor` split logic.
    Returns ``(dp_orig, dp_work, hadamard_applied)``.
    """
    d = int(head_dim)
    n_out = min(d - 1, max(0, int(d * float(outlier_fraction) + 0.999)))
    if n_out <= 0:
        dp_orig = d
    else:
        dp_orig = d - n_out
    if dp_orig <= 0:
        raise ValueError("kv_work_dimensions: empty rest subspace (check head_dim / outlier_fraction)")
    dp_work, had = rest_work_dim_and_hadamard(dp_orig, hadamard_rest, max_fwht_rest_dim=max_fwht_rest_dim)
    return dp_orig, dp_work, had


def kv_tensor_to_work_flat(
    x: torch.Tensor,
    *,
    outlier_fraction: float,
    hadamard_rest: bool,
    max_fwht_rest_dim: int = MAX_FWHT_REST_DIM,
) -> torch.Tensor:
    """
    Map ``x`` [B,H,S,D] to ``x_work`` [N, dp_work] using the same outlier / FWHT path as compression.
    Used by online prototype adaptation (:mod:`zerokv.online_adapt`).
    """
    d = int(x.shape[-1])
    device = x.device
    compute_dtype = torch.float32
    xf = x.reshape(-1, d).to(compute_dtype)
    n_out = min(d - 1, max(0, int(d * float(outlier_fraction) + 0.999)))
    absmax = xf.abs().max(dim=0).values
    if n_out <= 0:
        out_idx = torch.tensor([], device=device, dtype=torch.long)
        rest_idx = torch.arange(d, device=device)
        x_rest = xf
    else:
        _, out_idx = torch.topk(absmax, n_out)
        out_idx = torch.sort(out_idx).values
        mask = torch.ones(d, dtype=torch.bool, device=device)
        mask[out_idx] = False
        rest_idx = torch.nonzero(mask, as_tuple=False).squeeze(-1)
        x_rest = xf[:, rest_idx]

    dp_orig = int(rest_idx.numel())
    if dp_orig == 0:
        raise ValueError("kv_tensor_to_work_flat: empty rest_idx")

    dp_work, hadamard_applied = rest_work_dim_and_hadamard(
        dp_orig, hadamard_rest, max_fwht_rest_dim=max_fwht_rest_dim
    )
    x_work = x_rest
    if dp_work > dp_orig:
        x_work = F.pad(x_work, (0, dp_work - dp_orig))
    if hadamard_applied:
        x_work = fwht_normalized_last_dim(x_work)
    return x_work


@dataclass
class CompressedBlock:
    payload: Dict[str, Any]

    def to_device(self, device: torch.device) -> CompressedBlock:
        d = {}
        for key, val in self.payload.items():
            if torch.is_tensor(val):
                d[key] = val.to(device)
            else:
                d[key] = val
        return CompressedBlock(d)


def compress_kv_tensor(
    x: torch.Tensor,
    *,
    r_bits: int = 3,
    theta_bits: int = 2,
    qjl_dim: int = 8,
    outlier_fraction: float = 0.10,
    layer_seed: int = 0,
    hadamard_rest: bool = True,
    max_fwht_rest_dim: int = MAX_FWHT_REST_DIM,
    proto: Optional[torch.Tensor] = None,
    residual_bits: int = 1,
) -> CompressedBlock:
    """
    x: [B, H, S, D] — keys or values

    If ``proto`` is set, it must be ``(2**theta_bits, dp_work)`` unit-norm rows (same device/dtype
    coercion as internal path). The block then stores ``polar_proto_fp16`` so decompression matches.
    When ``proto`` is ``None``, prototypes are derived from ``layer_seed`` only (smaller payloads).
    """
    orig_shape = x.shape
    B, H, S, D = orig_shape
    device = x.device
    compute_dtype = torch.float32
    xf = x.reshape(-1, D).to(compute_dtype)
    N = xf.shape[0]
    n_out = min(D - 1, max(0, int(D * outlier_fraction + 0.999)))
    absmax = xf.abs().max(dim=0).values
    if n_out <= 0:
        out_idx = torch.tensor([], device=device, dtype=torch.long)
        rest_idx = torch.arange(D, device=device)
        x_out = torch.zeros(N, 0, device=device, dtype=torch.float16)
        x_rest = xf
    else:
        _, out_idx = torch.topk(absmax, n_out)
        out_idx = torch.sort(out_idx).values
        mask = torch.ones(D, dtype=torch.bool, device=device)
        mask[out_idx] = False
        rest_idx = torch.nonzero(mask, as_tuple=False).squeeze(-1)
        x_out = xf[:, out_idx].to(torch.float16)
        x_rest = xf[:, rest_idx]

    dp_orig = int(rest_idx.numel())
    if dp_orig == 0:
        raise ValueError("compress_kv_tensor: empty rest_idx (check head_dim / outlier_fraction)")

    dp_work, hadamard_applied = rest_work_dim_and_hadamard(
        dp_orig, hadamard_rest, max_fwht_rest_dim=max_fwht_rest_dim
    )
    x_work = x_rest
    if dp_work > dp_orig:
        x_work = F.pad(x_work, (0, dp_work - dp_orig))
    if hadamard_applied:
        x_work = fwht_normalized_last_dim(x_work)

    n_proto = 2**theta_bits
    custom_proto = proto
    if custom_proto is not None:
        proto_mat = custom_proto.to(device=device, dtype=compute_dtype)
        if proto_mat.shape != (n_proto, dp_work):
            raise ValueError(
                f"proto must have shape ({n_proto}, {dp_work}), got {tuple(proto_mat.shape)}"
            )
        store_polar_proto = True
    else:
        proto_mat = _proto_matrix(dp_work, n_proto, device, compute_dtype, layer_seed)
        store_polar_proto = False

    Rm = _qjl_matrix(dp_work, qjl_dim, device, compute_dtype, layer_seed)
    r_idx, ti, packed, lr_min, lr_max, res_norm_max, res_norm_quant, proj_min, proj_max = _compress_polar_impl(
        x_work, proto_mat, Rm, r_bits, qjl_dim, residual_bits
    )

    payload: Dict[str, Any] = {
        "shape": orig_shape,
        "out_idx": out_idx,
        "rest_idx": rest_idx,
        "x_out": x_out,
        "r_idx": r_idx,
        "ti": ti,
        "packed_signs": packed,
        "lr_min": lr_min,
        "lr_max": lr_max,
        "res_norm_max": res_norm_max,
        "res_norm_quant": res_norm_quant,
        "r_bits": r_bits,
        "theta_bits": theta_bits,
        "qjl_dim": qjl_dim,
        "layer_seed": layer_seed,
        "hadamard_rest": hadamard_applied,
        "dp_rest_orig": dp_orig,
        "dp_rest_work": dp_work,
        "residual_bits": residual_bits,
        "proj_min": proj_min,
        "proj_max": proj_max,
    }
    if store_polar_proto:
        payload["polar_proto_fp16"] = proto_mat.half().contiguous()
    return CompressedBlock(payload)


def _decompress_kv_tensor_impl(block: CompressedBlock, *, device: Optional[torch.device] = None) -> torch.Tensor:
    p = block.payload
    if device is not None:
        block = block.to_device(device)
        p = block.payload

    if p.get("zerokv_empty_prefix"):
        ref = p.get("_ref")
        if ref is not None and torch.is_tensor(ref):
            sh = p["shape"]
            return ref.new_zeros(tuple(sh))
        sh = tuple(p["shape"])
        dev = device if device is not None else torch.device("cpu")
        return torch.zeros(sh, device=dev, dtype=torch.float16)

    shape = p["shape"]
    B, H, S, D = shape
    device = p["x_out"].device
    compute_dtype = torch.float32

    out_idx = p["out_idx"]
    rest_idx = p["rest_idx"]
    xf = torch.zeros(B * H * S, D, device=device, dtype=compute_dtype)
    xf[:, out_idx] = p["x_out"].float()

    dp_orig = int(p.get("dp_rest_orig", rest_idx.numel()))
    dp_work = int(p.get("dp_rest_work", dp_orig))
    r_bits = int(p["r_bits"])
    r_levels = 2**r_bits
    lr_min = p["lr_min"].float()
    lr_max = p["lr_max"].float()
    span = (lr_max - lr_min).clamp(min=1e-6)
    r_idx = p["r_idx"].long()
    r_recon = torch.exp(lr_min + r_idx.float() / (r_levels - 1) * span).unsqueeze(-1)

    layer_seed = int(p["layer_seed"])
    theta_b = int(p["theta_bits"])
    if "polar_proto_fp16" in p and torch.is_tensor(p["polar_proto_fp16"]):
        proto = p["polar_proto_fp16"].float()
    else:
        proto = _proto_matrix(dp_work, 2**theta_b, device, compute_dtype, layer_seed)
    ti = p["ti"].long()
    u_hat = proto[ti]
    base = r_recon * u_hat

    qjl_dim = int(p["qjl_dim"])
    Rm = _qjl_matrix(dp_work, qjl_dim, device, compute_dtype, layer_seed)
    residual_bits = int(p.get("residual_bits", 1))

    if residual_bits == 1:
        signs = _unpack_signs(p["packed_signs"], qjl_dim).to(compute_dtype) * 2.0 - 1.0
        rn = p["res_norm_quant"].float() / 255.0 * p["res_norm_max"].float()
        res_hat = signs @ Rm * (rn.unsqueeze(-1) / (qjl_dim**0.5))
    elif residual_bits == 2:
        q_vals = _unpack_int2(p["packed_signs"], qjl_dim).to(compute_dtype)
        proj_min = p.get("proj_min", torch.tensor(0.0, device=device)).float()
        proj_max = p.get("proj_max", torch.tensor(1.0, device=device)).float()
        proj_span = (proj_max - proj_min).clamp(min=1e-6)
        proj_recon = q_vals / 3.0 * proj_span + proj_min
        res_hat = proj_recon @ Rm
    elif residual_bits == 4:
        q_vals = _unpack_int4(p["packed_signs"], qjl_dim).to(compute_dtype)
        proj_min = p.get("proj_min", torch.tensor(0.0, device=device)).float()
        proj_max = p.get("proj_max", torch.tensor(1.0, device=device)).float()
        proj_span = (proj_max - proj_min).clamp(min=1e-6)
        proj_recon = q_vals / 15.0 * proj_span + proj_min
        res_hat = proj_recon @ Rm
    else:
        signs = _unpack_signs(p["packed_signs"], qjl_dim).to(compute_dtype) * 2.0 - 1.0
        rn = p["res_norm_quant"].float() / 255.0 * p["res_norm_max"].float()
        res_hat = signs @ Rm * (rn.unsqueeze(-1) / (qjl_dim**0.5))

    x_rest = base + res_hat
    if bool(p.get("hadamard_rest", False)):
        x_rest = fwht_normalized_last_dim(x_rest)
    x_rest = x_rest[:, :dp_orig]
    xf[:, rest_idx] = x_rest
    return xf.reshape(shape).to(torch.float16)


decompress_kv_tensor = maybe_torch_compile_decompress(_decompress_kv_tensor_impl)


def compressed_kv_nbytes(block: CompressedBlock) -> int:
    n = 0
    for v in block.payload.values():
        if torch.is_tensor(v):
            n += v.numel() * v.element_size()
        elif isinstance(v, torch.Size):
            n += 0
    return int(n)
