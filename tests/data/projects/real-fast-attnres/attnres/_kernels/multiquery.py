"""Shared-source multi-query extensions of the Fast-AttnRes fixed-tail kernels.

The online recurrence, fused value/tail loading, source records, one-store
source-gradient folding, and static-query reduction are adapted from this
package's ``fixed_tail.py``.  Source layout preparation is reused from
``fla_full_sources.py`` (its upstream attribution is retained in that file and
NOTICE).  The original single-query kernels and launch policy are unchanged.

This module is an unqualified CUDA candidate until the bundled hardware gate
has run.  Launch choices below are resource bounds, not measured autotuning.
The private launchers also accept FP32 CPU tensors under TRITON_INTERPRET=1
for equation checks; the public operators enforce CUDA BF16.
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from . import fixed_tail
from .fla_full_sources import _affine_row_stride, _source_pointer_table

ONLINE_STATE_LIMIT = 4096
ONLINE_HARD_LIMIT = 8192
VALUE_TILE = 512
BACKWARD_SOURCES = 8
BACKWARD_VALUE_TILE = 256
QUERY_TILE = 32
REDUCE_TOKENS = 256


def _policy(width: int, rank: int, count: int, strategy: str = "auto") -> dict:
    """Device-independent, bounded candidate policy; override for benchmarking."""
    bd = triton.next_power_of_2(width)
    bm = triton.next_power_of_2(count)
    if strategy not in ("auto", "online", "tiled", "routing"):
        raise ValueError("strategy must be auto, online, tiled, or routing")
    if strategy == "auto":
        strategy = "online" if bm * bd <= ONLINE_STATE_LIMIT else "routing"
    if strategy == "online" and bm * bd > ONLINE_HARD_LIMIT:
        raise ValueError("online state exceeds the resource bound; use routing or tiled")
    if strategy == "tiled":
        tile = min(bm, max(1, min(2, ONLINE_STATE_LIMIT // bd)))
    else:
        tile = bm
    fuse = rank == width or fixed_tail._should_fuse_key_value(width, rank)
    block_r = bd if fuse else triton.next_power_of_2(rank)
    return {
        "strategy": strategy,
        "query_tile": tile,
        "block_d": bd,
        "block_r": block_r,
        "fuse_key_value": fuse,
        "backward": "online" if bm * bd <= ONLINE_STATE_LIMIT else "staged",
        "value_tile": min(VALUE_TILE, bd),
        "backward_sources": BACKWARD_SOURCES,
        "backward_value_tile": BACKWARD_VALUE_TILE,
        "online_forward_warps": 1 if block_r < 128 else 4,
        "num_warps": 4,
        "num_stages": 1,
    }


@triton.jit
def _value_pointer(values, source, token, LIST: tl.constexpr, SS: tl.constexpr,
                   RS: tl.constexpr, FS: tl.constexpr, UNIFORM: tl.constexpr,
                   VALUE_DTYPE: tl.constexpr):
    if LIST:
        pointer, stride = fixed_tail._source_record_pointer(
            values, source, token, VALUE_DTYPE, UNIFORM, RS, FS)
    else:
        pointer = values + tl.cast(source, tl.int64) * SS + tl.cast(token, tl.int64) * RS
        stride = FS
    return pointer, stride


@triton.jit
def _gradient_pointer(grad_values, source, token, N: tl.constexpr,
                      D: tl.constexpr, LIST: tl.constexpr, VALUE_DTYPE: tl.constexpr):
    if LIST:
        pointer, _stride = fixed_tail._source_record_pointer(
            grad_values, source, token, VALUE_DTYPE, True, D, 1)
    else:
        pointer = grad_values + (tl.cast(source, tl.int64) * N + tl.cast(token, tl.int64)) * D
    return pointer


@triton.jit
def _query_rows(ids, token, offsets, M: tl.constexpr, E: tl.constexpr,
                SELECTED: tl.constexpr):
    if SELECTED:
        rows = tl.load(ids + token * M + offsets, offsets < M, other=0).to(tl.int64)
        valid = (offsets < M) & (rows >= 0) & (rows < E)
        rows = tl.where(valid, rows, 0)
    else:
        rows = tl.cast(offsets, tl.int64)
        valid = offsets < M
    return rows, valid


@triton.jit
def _online_forward_kernel(
    values, queries, ids, output, mixed, inv, logits, stats,
    N: tl.constexpr, S: tl.constexpr, D: tl.constexpr, R: tl.constexpr,
    M: tl.constexpr, E: tl.constexpr, EPS: tl.constexpr, SCALE: tl.constexpr,
    BD: tl.constexpr, BR: tl.constexpr, BM: tl.constexpr,
    LIST: tl.constexpr, SELECTED: tl.constexpr, QUERY_MAJOR: tl.constexpr,
    SS: tl.constexpr, RS: tl.constexpr, FS: tl.constexpr, UNIFORM: tl.constexpr,
    QS: tl.constexpr, QR: tl.constexpr, FUSE: tl.constexpr,
    VALUE_DTYPE: tl.constexpr,
):
    n = tl.program_id(0).to(tl.int64)
    tile = tl.program_id(1)
    m = tile * BM + tl.arange(0, BM)
    d = tl.arange(0, BD)
    if FUSE:
        r = tl.arange(0, BR) - (D - R)
        rmask = (r >= 0) & (r < R)
    else:
        r = tl.arange(0, BR)
        rmask = r < R
    qrows, valid = _query_rows(ids, n, m, M, E, SELECTED)
    q = tl.load(queries + qrows[:, None] * QS + r[None, :].to(tl.int64) * QR,
                valid[:, None] & rmask[None, :], other=0).to(tl.float32)
    maximum = tl.full((BM,), -float("inf"), tl.float32)
    denom = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, BD), tl.float32)
    for s in range(S):
        ptr, stride = _value_pointer(values, s, n, LIST, SS, RS, FS, UNIFORM, VALUE_DTYPE)
        v = tl.load(ptr + d.to(tl.int64) * stride, d < D, other=0).to(tl.float32)
        if FUSE:
            tail = tl.where(rmask, v, 0.)
        else:
            tail = tl.load(ptr + (D - R + r).to(tl.int64) * stride,
                           rmask, other=0).to(tl.float32)
        rho = tl.rsqrt(tl.sum(tail * tail, 0) / R + EPS)
        key = tail * rho
        score = tl.sum(q * key[None, :], 1) * SCALE
        new_max = tl.maximum(maximum, score)
        old_scale = tl.exp(maximum - new_max)
        weight = tl.exp(score - new_max)
        denom = denom * old_scale + weight
        acc = acc * old_scale[:, None] + weight[:, None] * v[None, :]
        maximum = new_max
        if tile == 0:
            tl.store(inv + s * N + n, rho)
        tl.store(logits + (s * N + n) * M + m, score, m < M)
    result = acc / denom[:, None]
    tl.store(stats + n * M + m, maximum, m < M)
    tl.store(stats + N * M + n * M + m, 1. / denom, m < M)
    tl.store(mixed + (n * M + m[:, None]) * D + d[None, :], result,
             (m[:, None] < M) & (d[None, :] < D))
    if QUERY_MAJOR:
        out_ptr = output + (m[:, None] * N + n) * D + d[None, :]
    else:
        out_ptr = output + (n * M + m[:, None]) * D + d[None, :]
    tl.store(out_ptr, result, (m[:, None] < M) & (d[None, :] < D))


@triton.jit
def _routing_logits_kernel(
    values, queries, ids, inv, logits,
    N: tl.constexpr, S: tl.constexpr, D: tl.constexpr, R: tl.constexpr,
    M: tl.constexpr, E: tl.constexpr, EPS: tl.constexpr, SCALE: tl.constexpr,
    BR: tl.constexpr, LIST: tl.constexpr, SELECTED: tl.constexpr,
    SS: tl.constexpr, RS: tl.constexpr, FS: tl.constexpr, UNIFORM: tl.constexpr,
    QS: tl.constexpr, QR: tl.constexpr, VALUE_DTYPE: tl.constexpr,
):
    # A source/token owner keeps its normalized key resident while processing
    # query rows serially.  No M*R query matrix or M*D outputs are resident.
    n = tl.program_id(0).to(tl.int64)
    s = tl.program_id(1).to(tl.int64)
    r = tl.arange(0, BR)
    ptr, stride = _value_pointer(values, s, n, LIST, SS, RS, FS, UNIFORM, VALUE_DTYPE)
    tail = tl.load(ptr + (D - R + r).to(tl.int64) * stride, r < R, other=0).to(tl.float32)
    rho = tl.rsqrt(tl.sum(tail * tail, 0) / R + EPS)
    key = tail * rho
    tl.store(inv + s * N + n, rho)
    for m in range(M):
        qrow, valid = _query_rows(ids, n, m, M, E, SELECTED)
        q = tl.load(queries + qrow * QS + r.to(tl.int64) * QR,
                    valid & (r < R), other=0).to(tl.float32)
        score = tl.sum(key * q, 0) * SCALE
        tl.store(logits + (s * N + n) * M + m, score)


@triton.jit
def _routing_stats_kernel(logits, stats, N: tl.constexpr, S: tl.constexpr,
                          M: tl.constexpr, BS: tl.constexpr, BM: tl.constexpr):
    n = tl.program_id(0).to(tl.int64)
    s = tl.arange(0, BS)
    m = tl.arange(0, BM)
    score = tl.load(logits + (s[:, None] * N + n) * M + m[None, :],
                    (s[:, None] < S) & (m[None, :] < M), other=-float("inf"))
    maximum = tl.max(score, 0)
    # Padded queries are masked explicitly to avoid inf-inf in unused lanes.
    maximum = tl.where(m < M, maximum, 0.)
    weight = tl.exp(score - maximum[None, :])
    denom = tl.where(m < M, tl.sum(weight, 0), 1.)
    tl.store(stats + n * M + m, maximum, m < M)
    tl.store(stats + N * M + n * M + m, 1. / denom, m < M)


@triton.jit
def _value_mix_kernel(
    values, logits, stats, output, mixed,
    N: tl.constexpr, S: tl.constexpr, D: tl.constexpr, M: tl.constexpr,
    BD: tl.constexpr, BM: tl.constexpr, LIST: tl.constexpr, QUERY_MAJOR: tl.constexpr,
    SS: tl.constexpr, RS: tl.constexpr, FS: tl.constexpr, UNIFORM: tl.constexpr,
    VALUE_DTYPE: tl.constexpr,
):
    n = tl.program_id(0).to(tl.int64)
    d = tl.program_id(1) * BD + tl.arange(0, BD)
    m = tl.arange(0, BM)
    maximum = tl.load(stats + n * M + m, m < M, other=0.)
    inverse = tl.load(stats + N * M + n * M + m, m < M, other=0.)
    acc = tl.zeros((BM, BD), tl.float32)
    for s in range(S):
        ptr, stride = _value_pointer(values, s, n, LIST, SS, RS, FS, UNIFORM, VALUE_DTYPE)
        v = tl.load(ptr + d.to(tl.int64) * stride, d < D, other=0).to(tl.float32)
        score = tl.load(logits + (s * N + n) * M + m, m < M, other=0.)
        p = tl.exp(score - maximum) * inverse
        acc += p[:, None] * v[None, :]
    mask = (m[:, None] < M) & (d[None, :] < D)
    tl.store(mixed + (n * M + m[:, None]) * D + d[None, :], acc, mask)
    if QUERY_MAJOR:
        ptr_out = output + (m[:, None] * N + n) * D + d[None, :]
    else:
        ptr_out = output + (n * M + m[:, None]) * D + d[None, :]
    tl.store(ptr_out, acc, mask)


@triton.jit
def _online_backward_kernel(
    values, queries, ids, mixed, grad, inv, logits, stats, grad_values, grad_queries,
    N: tl.constexpr, S: tl.constexpr, D: tl.constexpr, R: tl.constexpr,
    M: tl.constexpr, E: tl.constexpr, SCALE: tl.constexpr,
    BD: tl.constexpr, BM: tl.constexpr, LIST: tl.constexpr, SELECTED: tl.constexpr,
    SS: tl.constexpr, RS: tl.constexpr, FS: tl.constexpr, UNIFORM: tl.constexpr,
    QS: tl.constexpr, QR: tl.constexpr, VALUE_DTYPE: tl.constexpr,
):
    n = tl.program_id(0).to(tl.int64)
    m = tl.arange(0, BM)
    d = tl.arange(0, BD)
    r = d - (D - R)
    tail_mask = (r >= 0) & (r < R)
    md_mask = (m[:, None] < M) & (d[None, :] < D)
    qrows, valid = _query_rows(ids, n, m, M, E, SELECTED)
    q = tl.load(queries + qrows[:, None] * QS + r[None, :].to(tl.int64) * QR,
                valid[:, None] & tail_mask[None, :], other=0).to(tl.float32)
    g = tl.load(grad + (n * M + m[:, None]) * D + d[None, :], md_mask, other=0).to(tl.float32)
    h = tl.load(mixed + (n * M + m[:, None]) * D + d[None, :], md_mask, other=0)
    delta = tl.sum(g * h, 1)
    maximum = tl.load(stats + n * M + m, m < M, other=0)
    inverse = tl.load(stats + N * M + n * M + m, m < M, other=0)
    dq = tl.zeros((BM, BD), tl.float32)
    for s in range(S):
        ptr, stride = _value_pointer(values, s, n, LIST, SS, RS, FS, UNIFORM, VALUE_DTYPE)
        v = tl.load(ptr + d.to(tl.int64) * stride, d < D, other=0).to(tl.float32)
        rho = tl.load(inv + s * N + n)
        key = tl.where(tail_mask, v * rho, 0.)
        score = tl.load(logits + (s * N + n) * M + m, m < M, other=0)
        p = tl.exp(score - maximum) * inverse
        dlogit = p * (tl.sum(g * v[None, :], 1) - delta)
        direct = tl.sum(p[:, None] * g, 0)
        raw_key_grad = tl.sum((dlogit * SCALE)[:, None] * q, 0)
        correction = tl.sum(dlogit * score, 0) / R
        tail_grad = rho * (raw_key_grad - key * correction)
        dv = direct + tl.where(tail_mask, tail_grad, 0.)
        gptr = _gradient_pointer(grad_values, s, n, N, D, LIST, VALUE_DTYPE)
        tl.store(gptr + d, dv, d < D)
        dq += (dlogit * SCALE)[:, None] * key[None, :]
    tl.store(grad_queries + (n * M + m[:, None]) * R + r[None, :], dq,
             (m[:, None] < M) & tail_mask[None, :])


@triton.jit
def _delta_kernel(mixed, grad, delta, N: tl.constexpr, D: tl.constexpr,
                   M: tl.constexpr, BD: tl.constexpr):
    n = tl.program_id(0).to(tl.int64)
    m = tl.program_id(1).to(tl.int64)
    d = tl.arange(0, BD)
    ptr = (n * M + m) * D + d
    h = tl.load(mixed + ptr, d < D, other=0)
    g = tl.load(grad + ptr, d < D, other=0).to(tl.float32)
    tl.store(delta + n * M + m, tl.sum(g * h, 0))


@triton.jit
def _dlogit_kernel(
    values, grad, delta, logits, stats, dlogits,
    N: tl.constexpr, S: tl.constexpr, D: tl.constexpr, M: tl.constexpr,
    BD: tl.constexpr, LIST: tl.constexpr, SS: tl.constexpr, RS: tl.constexpr,
    FS: tl.constexpr, UNIFORM: tl.constexpr, VALUE_DTYPE: tl.constexpr,
):
    m = tl.program_id(0).to(tl.int64)
    n = tl.program_id(1).to(tl.int64)
    d = tl.arange(0, BD)
    g = tl.load(grad + (n * M + m) * D + d, d < D, other=0).to(tl.float32)
    maximum = tl.load(stats + n * M + m)
    inverse = tl.load(stats + N * M + n * M + m)
    offset = tl.load(delta + n * M + m)
    # Keep a query's upstream gradient resident across all source dot products.
    for s in range(S):
        ptr, stride = _value_pointer(values, s, n, LIST, SS, RS, FS, UNIFORM, VALUE_DTYPE)
        v = tl.load(ptr + d.to(tl.int64) * stride, d < D, other=0).to(tl.float32)
        score = tl.load(logits + (s * N + n) * M + m)
        p = tl.exp(score - maximum) * inverse
        dl = p * (tl.sum(g * v, 0) - offset)
        tl.store(dlogits + (s * N + n) * M + m, dl)


@triton.jit
def _value_backward_kernel(
    values, queries, ids, grad, inv, logits, stats, dlogits, grad_values,
    N: tl.constexpr, S: tl.constexpr, D: tl.constexpr, R: tl.constexpr,
    M: tl.constexpr, E: tl.constexpr, SCALE: tl.constexpr,
    BD: tl.constexpr, BM: tl.constexpr, BS: tl.constexpr,
    LIST: tl.constexpr, SELECTED: tl.constexpr,
    SS: tl.constexpr, RS: tl.constexpr, FS: tl.constexpr, UNIFORM: tl.constexpr,
    QS: tl.constexpr, QR: tl.constexpr, VALUE_DTYPE: tl.constexpr,
):
    n = tl.program_id(0).to(tl.int64)
    s = tl.program_id(1).to(tl.int64) * BS + tl.arange(0, BS)
    d = tl.program_id(2) * BD + tl.arange(0, BD)
    r = d - (D - R)
    tail_mask = (r >= 0) & (r < R)
    direct = tl.zeros((BS, BD), tl.float32)
    raw_key_grad = tl.zeros((BS, BD), tl.float32)
    correction = tl.zeros((BS,), tl.float32)
    has_tail = tl.program_id(2) * BD + BD > D - R
    # Each block owns a rectangular source/feature tile. Query accumulation
    # stays in registers; there is no cross-warp reduction over query rows.
    for m in range(M):
        maximum = tl.load(stats + n * M + m)
        inverse = tl.load(stats + N * M + n * M + m)
        score = tl.load(logits + (s * N + n) * M + m, s < S, other=0.)
        p = tl.exp(score - maximum) * inverse
        g = tl.load(grad + (n * M + m) * D + d, d < D, other=0).to(tl.float32)
        direct += p[:, None] * g[None, :]
        if has_tail:
            dl = tl.load(dlogits + (s * N + n) * M + m, s < S, other=0.)
            qrow, valid = _query_rows(ids, n, m, M, E, SELECTED)
            q = tl.load(queries + qrow * QS + r.to(tl.int64) * QR,
                        valid & tail_mask, other=0).to(tl.float32)
            raw_key_grad += (dl * SCALE)[:, None] * q[None, :]
            correction += dl * score / R
    # Clamp padded source indices before looking up list pointer records.
    safe_s = tl.minimum(s, S - 1)
    dv = direct
    if has_tail:
        ptr, stride = _value_pointer(values, safe_s[:, None], n, LIST, SS, RS, FS,
                                     UNIFORM, VALUE_DTYPE)
        v = tl.load(ptr + d[None, :].to(tl.int64) * stride,
                    (s[:, None] < S) & tail_mask[None, :], other=0).to(tl.float32)
        rho = tl.load(inv + s * N + n, s < S, other=0.)
        key = v * rho[:, None]
        dv += tl.where(tail_mask[None, :],
                        rho[:, None] * (raw_key_grad - key * correction[:, None]), 0.)
    gptr = _gradient_pointer(grad_values, safe_s[:, None], n, N, D, LIST, VALUE_DTYPE)
    tl.store(gptr + d[None, :], dv, (s[:, None] < S) & (d[None, :] < D))


@triton.jit
def _query_backward_kernel(
    values, inv, dlogits, grad_queries,
    N: tl.constexpr, S: tl.constexpr, D: tl.constexpr, R: tl.constexpr,
    M: tl.constexpr, SCALE: tl.constexpr, BR: tl.constexpr, BM: tl.constexpr,
    LIST: tl.constexpr, SS: tl.constexpr, RS: tl.constexpr, FS: tl.constexpr,
    UNIFORM: tl.constexpr, VALUE_DTYPE: tl.constexpr,
):
    n = tl.program_id(0).to(tl.int64)
    r = tl.program_id(1) * BR + tl.arange(0, BR)
    m = tl.arange(0, BM)
    acc = tl.zeros((BM, BR), tl.float32)
    for s in range(S):
        ptr, stride = _value_pointer(values, s, n, LIST, SS, RS, FS, UNIFORM, VALUE_DTYPE)
        tail = tl.load(ptr + (D - R + r).to(tl.int64) * stride, r < R, other=0).to(tl.float32)
        key = tail * tl.load(inv + s * N + n)
        dl = tl.load(dlogits + (s * N + n) * M + m, m < M, other=0)
        acc += (dl * SCALE)[:, None] * key[None, :]
    tl.store(grad_queries + (n * M + m[:, None]) * R + r[None, :], acc,
             (m[:, None] < M) & (r[None, :] < R))


@triton.jit
def _segmented_query_reduce_kernel(
    sorted_ids, permutation, partial, grad_bank,
    T: tl.constexpr, R: tl.constexpr, BR: tl.constexpr, BN: tl.constexpr,
):
    # Stable sorting gives each expert one ordered, non-overlapping segment.
    # The owner writes every row, including the all-zero empty segment.
    e = tl.program_id(0).to(tl.int64)
    r = tl.program_id(1) * BR + tl.arange(0, BR)
    lo = tl.full((), 0, tl.int64)
    hi = tl.full((), T, tl.int64)
    while lo < hi:
        mid = (lo + hi) // 2
        value = tl.load(sorted_ids + mid)
        less = value < e
        lo = tl.where(less, mid + 1, lo)
        hi = tl.where(less, hi, mid)
    start = lo
    hi = tl.full((), T, tl.int64)
    while lo < hi:
        mid = (lo + hi) // 2
        value = tl.load(sorted_ids + mid)
        less = value <= e
        lo = tl.where(less, mid + 1, lo)
        hi = tl.where(less, hi, mid)
    end = lo
    acc = tl.zeros((BR,), tl.float32)
    for base in range(start, end, BN):
        pos = base + tl.arange(0, BN)
        original = tl.load(permutation + pos, pos < end, other=0).to(tl.int64)
        value = tl.load(partial + original[:, None] * R + r[None, :],
                        (pos[:, None] < end) & (r[None, :] < R), other=0)
        acc += tl.sum(value, 0)
    tl.store(grad_bank + e * R + r, acc, r < R)


def _geometry(sources, queries, selected_ids, packed):
    first = sources[0]
    shape = tuple(first.shape[1:] if packed else first.shape)
    n = math.prod(shape[:-1])
    s = first.shape[0] if packed else len(sources)
    m = selected_ids.shape[-1] if selected_ids is not None else queries.shape[0]
    return shape, int(n), int(s), int(shape[-1]), int(queries.shape[-1]), int(m)


def _prepare_sources(sources, packed, gradients=None):
    """Reuse upstream row preparation and GPU-built pointer records (no data_ptr)."""
    first = sources[0]
    dtype = tl.bfloat16 if first.dtype == torch.bfloat16 else tl.float32
    if packed:
        value = first
        row_stride = _affine_row_stride(value[0])
        if row_stride is None:
            value = value.contiguous()
            row_stride = _affine_row_stride(value[0])
        fields = dict(LIST=False, SS=value.stride(0), RS=row_stride,
                      FS=value.stride(-1), UNIFORM=True, VALUE_DTYPE=dtype)
        return value, gradients[0] if gradients is not None else None, fields, (value,)
    prepared, rows, features, length = _source_pointer_table(sources)
    records = torch.empty((length * (6 if gradients is not None else 3),),
                          device=first.device, dtype=torch.int64)
    fixed_tail._source_record_setup[(1,)](
        prepared, tuple(gradients) if gradients is not None else (), records,
        L2=length, HAS_GRAD_VALUES=gradients is not None,
        ROW_STRIDES=rows, FEATURE_STRIDES=features,
        GRAD_ROW_STRIDES=(first.shape[-1],) * length,
        GRAD_FEATURE_STRIDES=(1,) * length, num_warps=4,
    )
    uniform = len(set(rows)) == 1 and len(set(features)) == 1
    fields = dict(LIST=True, SS=0, RS=rows[0], FS=features[0],
                  UNIFORM=uniform, VALUE_DTYPE=dtype)
    # Integer pointer records do not keep the pointed-to tensors alive.  In
    # particular, per-source contiguous copies for non-affine leading axes
    # must survive subsequent allocations and EVERY consuming launch.
    return records, records[length * 3:] if gradients is not None else None, fields, prepared


def forward(sources, queries, selected_ids, packed, eps, scale, strategy, output_layout):
    shape, n, s, d, r, m = _geometry(sources, queries, selected_ids, packed)
    policy = _policy(d, r, m, strategy)
    selected = selected_ids is not None
    ids = selected_ids.contiguous() if selected else queries
    value, _, fields, source_keepalive = _prepare_sources(sources, packed)
    query_major = output_layout == "query_major"
    out_shape = (m, *shape) if query_major else (*shape[:-1], m, d)
    output = torch.empty(out_shape, dtype=queries.dtype, device=queries.device)
    mixed = torch.empty((n, m, d), dtype=torch.float32, device=queries.device)
    inv = torch.empty((s, n), dtype=torch.float32, device=queries.device)
    logits = torch.empty((s, n, m), dtype=torch.float32, device=queries.device)
    stats = torch.empty((2, n, m), dtype=torch.float32, device=queries.device)
    options = dict(num_warps=policy["num_warps"], num_stages=policy["num_stages"])
    common = dict(N=n, S=s, D=d, R=r, M=m, E=queries.shape[0], EPS=eps, SCALE=scale,
                  SELECTED=selected, QS=queries.stride(0), QR=queries.stride(1), **fields)
    if policy["strategy"] in ("online", "tiled"):
        # Narrow key reductions otherwise require a replicated cross-warp
        # layout conversion for the online state. Keep them within one warp.
        options["num_warps"] = policy["online_forward_warps"]
        _online_forward_kernel[(n, triton.cdiv(m, policy["query_tile"]))](
            value, queries, ids, output, mixed, inv, logits, stats,
            BD=policy["block_d"], BR=policy["block_r"], BM=policy["query_tile"],
            FUSE=policy["fuse_key_value"], QUERY_MAJOR=query_major, **common, **options)
    else:
        _routing_logits_kernel[(n, s)](
            value, queries, ids, inv, logits, BR=triton.next_power_of_2(r), **common, **options)
        _routing_stats_kernel[(n,)](
            logits, stats, N=n, S=s, M=m, BS=triton.next_power_of_2(s),
            BM=triton.next_power_of_2(m), **options)
        _value_mix_kernel[(n, triton.cdiv(d, policy["value_tile"]))](
            value, logits, stats, output, mixed, N=n, S=s, D=d, M=m,
            BD=policy["value_tile"], BM=triton.next_power_of_2(m), QUERY_MAJOR=query_major,
            **fields, **options)
    del source_keepalive  # All consuming launches are now enqueued on this stream.
    return output, mixed, inv, logits, stats


def backward(sources, queries, selected_ids, packed, saved_output_fp32, grad_output,
             saved_key_inv_rms, saved_logit, softmax_stats, scale, output_layout):
    _shape, n, s, d, r, m = _geometry(sources, queries, selected_ids, packed)
    policy = _policy(d, r, m)
    selected = selected_ids is not None
    ids = selected_ids.contiguous() if selected else queries
    if output_layout == "query_major":
        grad = grad_output.reshape(m, n, d).permute(1, 0, 2).contiguous()
    else:
        grad = grad_output.reshape(n, m, d).contiguous()
    gradients = [torch.empty_like(v, memory_format=torch.contiguous_format) for v in sources]
    value, grad_value, fields, source_keepalive = _prepare_sources(sources, packed, gradients)
    partial = torch.empty((n, m, r), dtype=torch.float32, device=queries.device)
    grad_query = torch.empty(queries.shape, dtype=queries.dtype, device=queries.device)
    options = dict(num_warps=policy["num_warps"], num_stages=policy["num_stages"])
    common = dict(N=n, S=s, D=d, R=r, M=m, E=queries.shape[0], SCALE=scale,
                  SELECTED=selected, QS=queries.stride(0), QR=queries.stride(1), **fields)
    if policy["backward"] == "online":
        _online_backward_kernel[(n,)](
            value, queries, ids, saved_output_fp32, grad, saved_key_inv_rms,
            saved_logit, softmax_stats, grad_value, partial,
            BD=policy["block_d"], BM=triton.next_power_of_2(m), **common, **options)
    else:
        delta = torch.empty((n, m), dtype=torch.float32, device=queries.device)
        dlogits = torch.empty((s, n, m), dtype=torch.float32, device=queries.device)
        _delta_kernel[(n, m)](saved_output_fp32, grad, delta, N=n, D=d, M=m,
                              BD=policy["block_d"], **options)
        _dlogit_kernel[(m, n)](
            value, grad, delta, saved_logit, softmax_stats, dlogits,
            N=n, S=s, D=d, M=m, BD=policy["block_d"], **fields, **options)
        _value_backward_kernel[(n, triton.cdiv(s, BACKWARD_SOURCES), triton.cdiv(d, BACKWARD_VALUE_TILE))](
            value, queries, ids, grad, saved_key_inv_rms, saved_logit, softmax_stats,
            dlogits, grad_value, BD=BACKWARD_VALUE_TILE, BM=triton.next_power_of_2(m), BS=BACKWARD_SOURCES,
            **common, **options)
        _query_backward_kernel[(n, triton.cdiv(r, QUERY_TILE))](
            value, saved_key_inv_rms, dlogits, partial, N=n, S=s, D=d, R=r,
            M=m, SCALE=scale, BR=QUERY_TILE, BM=triton.next_power_of_2(m),
            **fields, **options)
    if selected:
        sorted_ids, permutation = torch.sort(ids.reshape(-1), stable=True)
        _segmented_query_reduce_kernel[(queries.shape[0], triton.cdiv(r, QUERY_TILE))](
            sorted_ids, permutation, partial, grad_query, T=n * m, R=r,
            BR=QUERY_TILE, BN=REDUCE_TOKENS, **options)
    else:
        # Same deterministic token reduction as the original packed kernel.
        # Store once to BF16 after the complete FP32 reduction.
        fixed_tail._packed_query_reduce_kernel[(triton.cdiv(m * r, QUERY_TILE),)](
            partial, grad_query, n, R=m * r,
            BLOCK_N=min(REDUCE_TOKENS, triton.next_power_of_2(n)),
            BLOCK_R=QUERY_TILE, **options)
    del source_keepalive
    return gradients + [grad_query]


__all__ = ["forward", "backward"]
