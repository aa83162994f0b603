"""Weight-mode kernels shared by the three decode paths.

`FastMossTTS` (bf16 / W8 / W4-RTN), `GptqMossTTS` (W4 GPTQ) and
`W4CapturingMossTTS` (eager calibration) each carried a private copy of
"run one backbone linear in the active weight mode" and of the RTN/int4pack
packing step. Both live here so a single change reaches all three.
"""
import torch
import torch.nn.functional as F

_LIN_NAMES = ("q", "k", "v", "o", "gate", "up", "down")

def kernel_linear(x, packed, g, qsz, out_dtype):
    """int4pack GEMM shaped like F.linear (x: [..., K] -> [..., N])."""
    x2 = x.reshape(-1, x.shape[-1])
    out = torch._weight_int4pack_mm(x2, packed, g, qsz)
    if out.dtype != out_dtype:
        out = out.to(out_dtype)
    return out.reshape(*x.shape[:-1], qsz.shape[1])

def quantize_w8(w):
    """Per-output-channel symmetric int8 (returns (w8, scale) in kernel layout)."""
    wf = w.float()
    sc = (wf.abs().amax(dim=1) / 127.0).clamp(min=1e-8)
    w8 = torch.round(wf / sc[:, None]).clamp(-127, 127).to(torch.int8)
    return w8.contiguous(), sc.contiguous()

def quantize_w4(w, group_size, inner_k_tiles):
    """RTN group-wise int4 -> (int4pack, qsz) exactly as fp32 eval expects."""
    N, K = w.shape
    wg = w.float().reshape(N, K // group_size, group_size)
    mx, mn = wg.amax(-1, keepdim=True), wg.amin(-1, keepdim=True)
    s = ((mx - mn) / 15.0).clamp(min=1e-6)
    q = ((wg - mn) / s).round().clamp(0, 15).to(torch.uint8).reshape(N, K)
    qsz = torch.stack([s.squeeze(-1), (mn + 8.0 * s).squeeze(-1)], -1) \
        .bfloat16().transpose(0, 1).contiguous()
    packed = torch.ops.aten._convert_weight_to_int4pack(
        (q[:, 1::2] | (q[:, 0::2] << 4)).contiguous(), inner_k_tiles)
    return packed, qsz

def normalize_packed(rec):
    """(packed, qsz) in the canonical int32 / bf16 contiguous layout."""
    packed, qsz = rec["packed"], rec["qsz"]
    if not packed.is_contiguous():
        packed = packed.contiguous()
    if not qsz.is_contiguous():
        qsz = qsz.contiguous()
    if packed.dtype != torch.int32:
        packed = packed.to(torch.int32)
    if qsz.dtype != torch.bfloat16:
        qsz = qsz.to(torch.bfloat16)
    return packed, qsz

def install_gptq(layers, state, device):
    """In-place: move one layer's pre-packed GPTQ weights onto `device` and pop
    the bf16 originals so only the quantized copy stays resident."""
    qd = {}
    for name, rec in state.items():
        packed, qsz = normalize_packed(rec)
        qd[name] = (packed.to(device=device, non_blocking=False),
                    qsz.to(device=device, non_blocking=False))
        layers.pop(name)
    return qd
