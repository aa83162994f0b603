#!/usr/bin/env python3
"""MLX port of MIRA's DiffusionTransformer — streaming KV-cached forward only.

Faithful to mira/world_model/diffusion_transformer.py + layers/* for the
INFERENCE path (patch_size=1, registers=0, eval, kv-cached single-latent
forward + prefix forward). Used for the M1-local feasibility spike:
convert torch weights -> MLX, optionally 4-bit-quantize the Linears, verify
against torch outputs, and benchmark.

Weight mapping: identical module names; nn.Linear weight layout matches
(out, in) in both frameworks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mlx.core as mx
import mlx.nn as nn


@dataclass
class DitSpec:
    hidden_dim: int
    n_head: int
    n_kv_head: int
    n_layers: int
    time_attention_every: int
    latent_dim: int
    latent_h: int
    latent_w: int
    use_clean_past: bool = True
    attention_gating: bool = True
    ada_attn_ln: bool = True
    # PSD-M integration-step (tau_delta) embedding. Only present when the checkpoint carries
    # `diffusion_time_embedding_delta.*` keys (a PSD-trained / 2-step model). Defaults False so
    # stage-1 checkpoints (no delta keys) build a delta-free model, bit-identical to before.
    psd_enabled: bool = False

    @property
    def head_dim(self) -> int:
        return self.hidden_dim // self.n_head

    def has_time(self, i: int) -> bool:
        return i % self.time_attention_every == 0 or i == self.n_layers - 1


# ---------------------------------------------------------------- primitives


def rope_tables(length: int, dim: int, fps: int = 10, max_period_sec: float = 64.0):
    """Matches mira RoPE: positions in SECONDS (t/fps), w = exp(-log(64)*2k/dim)."""
    ds = mx.arange(dim // 2)
    w = mx.exp(ds * (-math.log(max_period_sec) * 2.0 / dim))
    t = mx.arange(length) / fps
    freqs = mx.outer(t, w)  # (T, dim/2)
    cos = mx.repeat(mx.cos(freqs), 2, axis=-1)
    sin = mx.repeat(mx.sin(freqs), 2, axis=-1)
    return cos, sin


def spatial_rope_tables(h: int, w: int, dim: int, max_period: float = 100.0):
    """Matches SpatialRoPE2D: axial, log-spaced band 2pi/100 -> pi, y-then-x."""
    n = (dim // 2) // 2
    k = mx.arange(n)
    inv_min = 2 * math.pi / max_period
    inv_max = math.pi
    inv = inv_min * (inv_max / inv_min) ** (k / max(n - 1, 1))

    def axis(size):
        f = mx.outer(mx.arange(size), inv)
        return mx.repeat(mx.cos(f), 2, axis=-1), mx.repeat(mx.sin(f), 2, axis=-1)

    cy, sy = axis(h)  # (h, dim/2)
    cx, sx = axis(w)  # (w, dim/2)
    cy = mx.broadcast_to(cy[:, None, :], (h, w, dim // 2))
    sy = mx.broadcast_to(sy[:, None, :], (h, w, dim // 2))
    cx = mx.broadcast_to(cx[None, :, :], (h, w, dim // 2))
    sx = mx.broadcast_to(sx[None, :, :], (h, w, dim // 2))
    cos = mx.concatenate([cy, cx], axis=-1).reshape(h * w, dim)
    sin = mx.concatenate([sy, sx], axis=-1).reshape(h * w, dim)
    return cos, sin


def apply_rotary(x: mx.array, cos: mx.array, sin: mx.array) -> mx.array:
    """x: (B, T, H, D) — pairs are consecutive values (repeat_interleaved tables)."""
    x1 = x[..., 0::2]
    x2 = x[..., 1::2]
    rot = mx.stack([-x2, x1], axis=-1).reshape(x.shape)
    # cos/sin: (T, D) -> broadcast over batch/heads
    return (x.astype(mx.float32) * cos[None, :, None, :]
            + rot.astype(mx.float32) * sin[None, :, None, :]).astype(x.dtype)


class QKLayerNorm(nn.Module):
    """Per-head LN with learned scale, computed in fp32 (matches torch impl)."""

    def __init__(self, heads: int, head_dim: int):
        super().__init__()
        self.qk_scale = mx.ones((heads, head_dim))

    def __call__(self, x: mx.array) -> mx.array:  # (B, T, H, D)
        xf = x.astype(mx.float32)
        mean = xf.mean(axis=-1, keepdims=True)
        var = ((xf - mean) ** 2).mean(axis=-1, keepdims=True)
        xf = (xf - mean) * mx.rsqrt(var + 1e-5)
        return (self.qk_scale.astype(mx.float32) * xf).astype(x.dtype)


class SelfAttention(nn.Module):
    def __init__(self, spec: DitSpec):
        super().__init__()
        d, h, kh = spec.hidden_dim, spec.n_head, spec.n_kv_head
        self.h, self.kh, self.hd = h, kh, spec.head_dim
        self.gating = spec.attention_gating
        out = d + 2 * kh * spec.head_dim + (d if self.gating else 0)
        self.wqkv = nn.Linear(d, out, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.q_ln = QKLayerNorm(h, spec.head_dim)
        self.k_ln = QKLayerNorm(kh, spec.head_dim)

    def __call__(self, x, rope=None, kv_cache=None, return_kv=False):
        B, T, _ = x.shape
        d = self.h * self.hd
        kvd = self.kh * self.hd
        proj = self.wqkv(x)
        q = proj[..., :d].reshape(B, T, self.h, self.hd)
        k = proj[..., d:d + kvd].reshape(B, T, self.kh, self.hd)
        v = proj[..., d + kvd:d + 2 * kvd].reshape(B, T, self.kh, self.hd)
        gate = proj[..., 2 * kvd + d:] if self.gating else None

        q = self.q_ln(q)
        k = self.k_ln(k)
        to_cache = (k, v) if return_kv else None
        if kv_cache is not None:
            k = mx.concatenate([kv_cache[0], k], axis=1)
            v = mx.concatenate([kv_cache[1], v], axis=1)
        if rope is not None:
            cos, sin = rope
            q = apply_rotary(q, cos[-T:], sin[-T:])
            k = apply_rotary(k, cos[: k.shape[1]], sin[: k.shape[1]])

        # (B, H, T, D)
        qh = q.transpose(0, 2, 1, 3)
        kh_ = k.transpose(0, 2, 1, 3)
        vh = v.transpose(0, 2, 1, 3)
        if self.kh != self.h:
            rep = self.h // self.kh
            kh_ = mx.repeat(kh_, rep, axis=1)
            vh = mx.repeat(vh, rep, axis=1)
        # causal only matters when T > 1 with no cache (prefix): build mask.
        mask = None
        if T > 1 and kv_cache is None and self.causal_time:
            mask = nn.MultiHeadAttention.create_additive_causal_mask(T).astype(qh.dtype)
        o = mx.fast.scaled_dot_product_attention(
            qh, kh_, vh, scale=1.0 / math.sqrt(self.hd), mask=mask
        )
        o = o.transpose(0, 2, 1, 3).reshape(B, T, d)
        if gate is not None:
            o = o * mx.sigmoid(gate)
        return self.wo(o), to_cache

    causal_time = False  # set True on time-attention instances


class AdaLN(nn.Module):
    def __init__(self, dim: int, cond: int):
        super().__init__()
        self.gamma_beta = nn.Linear(cond, 2 * dim)
        self.dim = dim

    def __call__(self, x, cond):
        xn = mx.fast.layer_norm(x, None, None, 1e-5)
        gb = self.gamma_beta(cond)
        g, b_ = gb[..., : self.dim], gb[..., self.dim:]
        return (1 + g) * xn + b_


class FeedForward(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        hidden = int(2 * 4 * dim / 3)
        hidden = 256 * ((hidden + 255) // 256)
        self.swish_linear = nn.Linear(dim, hidden, bias=False)
        self.gate_linear = nn.Linear(dim, hidden, bias=False)
        self.output_linear = nn.Linear(hidden, dim, bias=False)

    def __call__(self, x):
        return self.output_linear(nn.silu(self.swish_linear(x)) * self.gate_linear(x))


class AdaSTBlock(nn.Module):
    def __init__(self, spec: DitSpec, time_attention: bool):
        super().__init__()
        self.time_attention = time_attention
        self.space_attn = SelfAttention(spec)
        self.space_attn_ln = AdaLN(spec.hidden_dim, spec.hidden_dim)
        if time_attention:
            self.time_attn = SelfAttention(spec)
            self.time_attn.causal_time = True
            self.time_attn_ln = AdaLN(spec.hidden_dim, spec.hidden_dim)
        self.mlp_ln = AdaLN(spec.hidden_dim, spec.hidden_dim)
        self.mlp = FeedForward(spec.hidden_dim)

    def __call__(self, x, cond, t_rope, s_rope, kv_cache=None, return_kv=False):
        """cond: (B, T, 1, 1, C) — constant across spatial tokens. AdaLN's gamma_beta
        runs on the token-free view and broadcasts: value-identical to per-token
        (row-independent linear) at 1/144th the GEMM mass."""
        B, T, H, W, C = x.shape
        xs = x.reshape(B * T, H * W, C)
        cs = cond.reshape(B * T, 1, C)
        a, _ = self.space_attn(self.space_attn_ln(xs, cs), rope=s_rope)
        xs = xs + a
        x = xs.reshape(B, T, H, W, C)
        to_cache = None
        if self.time_attention:
            xt = x.transpose(0, 2, 3, 1, 4).reshape(B * H * W, T, C)
            ct = cond.reshape(B, T, C)
            if B != 1:  # b-major repeat matches xt's (b, hw) flattening
                ct = mx.repeat(ct, H * W, axis=0)
            y, to_cache = self.time_attn(
                self.time_attn_ln(xt, ct), rope=t_rope,
                kv_cache=kv_cache, return_kv=return_kv,
            )
            xt = xt + y
            x = xt.reshape(B, H, W, T, C).transpose(0, 3, 1, 2, 4)
        x = x + self.mlp(self.mlp_ln(x, cond))
        return x, to_cache


class TimestepEmbedding(nn.Module):
    """Matches DiffusionTimeEmbedding: n_freq=128, [sin, cos] order, x1000,
    exponent /(half_dim), then Linear(256->dim) SiLU Linear(dim->dim)."""

    N_FREQ = 128

    def __init__(self, dim: int):
        super().__init__()
        self.mlp = [nn.Linear(2 * self.N_FREQ, dim), nn.Linear(dim, dim)]

    def __call__(self, tau):  # tau (B, T, 1, 1, 1)
        half = self.N_FREQ
        freqs = mx.exp(-math.log(10000.0) * mx.arange(half) / half)
        t = tau.reshape(*tau.shape[:2], 1).astype(mx.float32) * 1000.0
        args = t * freqs  # (B, T, 128)
        emb = mx.concatenate([mx.sin(args), mx.cos(args)], axis=-1)
        emb = self.mlp[1](nn.silu(self.mlp[0](emb.astype(self.mlp[0].weight.dtype))))
        return emb[:, :, None, None, :]


class MlxDit(nn.Module):
    def __init__(self, spec: DitSpec):
        super().__init__()
        self.spec = spec
        self.latent_tokens_proj = nn.Linear(spec.latent_dim, spec.hidden_dim)
        self.past_proj = nn.Linear(spec.latent_dim, spec.hidden_dim) if spec.use_clean_past else None
        self.diffusion_time_embedding = TimestepEmbedding(spec.hidden_dim)
        # Mirrors DiffusionTransformer: the delta embedding exists iff PSD is enabled
        # (diffusion_transformer.py:74-76). Absent -> the tau_delta pathway is a no-op.
        self.diffusion_time_embedding_delta = (
            TimestepEmbedding(spec.hidden_dim) if spec.psd_enabled else None
        )
        self.transformer = [
            AdaSTBlock(spec, spec.has_time(i)) for i in range(spec.n_layers)
        ]
        self.head = nn.Linear(spec.hidden_dim, spec.latent_dim)

    def __call__(self, z_t, a, tau, kv_caches=None, clean_past=None, return_kv=False, tau_delta=None):
        B, T, H, W, _ = z_t.shape
        x = self.latent_tokens_proj(z_t)
        if clean_past is not None and self.past_proj is not None:
            x = x + self.past_proj(clean_past)
        # Diffusion-time conditioning + optional PSD integration-step (tau_delta) term.
        # Mirrors diffusion_transformer.py:144-149: tau_delta=None -> zeros when the delta
        # embedding exists; when it doesn't exist the term is skipped entirely.
        tau_emb = self.diffusion_time_embedding(tau)
        if self.diffusion_time_embedding_delta is not None:
            td = tau_delta if tau_delta is not None else mx.zeros_like(tau)
            tau_emb = tau_emb + self.diffusion_time_embedding_delta(td)
        cond = a[:, :, None, None, :] + tau_emb  # (B, T, 1, 1, C): constant over H, W

        t_len = T + (kv_caches[0][0].shape[1] if kv_caches and kv_caches[0] is not None else 0)
        t_rope = rope_tables(t_len, self.spec.head_dim)
        s_rope = spatial_rope_tables(H, W, self.spec.head_dim)

        new_kv = []
        for i, blk in enumerate(self.transformer):
            kc = kv_caches[i] if kv_caches is not None else None
            x, tc = blk(x, cond, t_rope, s_rope, kv_cache=kc, return_kv=return_kv)
            new_kv.append(tc)
        out = self.head(x)
        return (out, new_kv) if return_kv else out


# ---------------------------------------------------------------- conversion


def convert_from_torch(state_dict, spec: DitSpec) -> "MlxDit":
    """Map mira DiffusionTransformer state_dict (prefix 'world_model.') -> MlxDit."""
    import numpy as np

    def g(name):
        t = state_dict[name]
        return mx.array(np.ascontiguousarray(t.detach().to("cpu").float().numpy()))

    model = MlxDit(spec)
    p = "world_model."
    updates: dict = {
        "latent_tokens_proj": {"weight": g(p + "latent_tokens_proj.weight"),
                               "bias": g(p + "latent_tokens_proj.bias")},
        "head": {"weight": g(p + "head.weight"), "bias": g(p + "head.bias")},
        "diffusion_time_embedding": {"mlp": [
            {"weight": g(p + "diffusion_time_embedding.mlp.0.weight"),
             "bias": g(p + "diffusion_time_embedding.mlp.0.bias")},
            {"weight": g(p + "diffusion_time_embedding.mlp.2.weight"),
             "bias": g(p + "diffusion_time_embedding.mlp.2.bias")},
        ]},
    }
    if spec.use_clean_past:
        updates["past_proj"] = {"weight": g(p + "past_proj.weight"),
                                "bias": g(p + "past_proj.bias")}
    if spec.psd_enabled:
        dp = p + "diffusion_time_embedding_delta."
        updates["diffusion_time_embedding_delta"] = {"mlp": [
            {"weight": g(dp + "mlp.0.weight"), "bias": g(dp + "mlp.0.bias")},
            {"weight": g(dp + "mlp.2.weight"), "bias": g(dp + "mlp.2.bias")},
        ]}

    blocks = []
    for i in range(spec.n_layers):
        bp = f"{p}transformer.{i}."

        def attn(sub):
            return {
                "wqkv": {"weight": g(bp + sub + ".wqkv.weight")},
                "wo": {"weight": g(bp + sub + ".wo.weight")},
                "q_ln": {"qk_scale": g(bp + sub + ".q_ln.qk_scale")},
                "k_ln": {"qk_scale": g(bp + sub + ".k_ln.qk_scale")},
            }

        def adaln(sub):
            return {"gamma_beta": {"weight": g(bp + sub + ".gamma_beta.weight"),
                                   "bias": g(bp + sub + ".gamma_beta.bias")}}

        entry = {
            "space_attn": attn("space_attn"),
            "space_attn_ln": adaln("space_attn_ln"),
            "mlp_ln": adaln("mlp_ln"),
            "mlp": {
                "swish_linear": {"weight": g(bp + "mlp.swish_linear.weight")},
                "gate_linear": {"weight": g(bp + "mlp.gate_linear.weight")},
                "output_linear": {"weight": g(bp + "mlp.output_linear.weight")},
            },
        }
        if spec.has_time(i):
            entry["time_attn"] = attn("time_attn")
            entry["time_attn_ln"] = adaln("time_attn_ln")
        blocks.append(entry)
    updates["transformer"] = blocks
    model.update(updates)
    mx.eval(model.parameters())
    return model
