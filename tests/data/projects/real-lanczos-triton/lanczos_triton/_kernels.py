"""Exact-support separable Lanczos kernels (no staged resampling approximation)."""

import triton
import triton.language as tl


@triton.jit
def _position(dst, IN: tl.constexpr, OUT: tl.constexpr):
    # Avoid subtracting large float32 coordinates when evaluating small distances.
    dst = tl.minimum(dst, OUT - 1)
    if 2 * IN * OUT > 2147483647:
        product = (2 * dst.to(tl.int64) + 1) * IN
    else:
        product = (2 * dst + 1) * IN
    base = product // (2 * OUT)
    fraction = (product % (2 * OUT)).to(tl.float32) / (2 * OUT) - 0.5
    return base.to(tl.int32), fraction


@triton.jit
def _sinc(x):
    p = x * 3.141592653589793
    return tl.where(tl.abs(x) < 1.0e-7, 1.0, tl.sin(p) / tl.where(p == 0, 1.0, p))


@triton.jit
def _weight(k, start, base, fraction, SCALE: tl.constexpr, A: tl.constexpr):
    d = ((start - base + k).to(tl.float32) - fraction) / SCALE
    return tl.where(tl.abs(d) < A, _sinc(d) * _sinc(d / A), 0.0)


@triton.jit
def weights(
    W,
    Starts,
    IN: tl.constexpr,
    OUT: tl.constexpr,
    A: tl.constexpr,
    SCALE: tl.constexpr,
    TAPS: tl.constexpr,
    K: tl.constexpr,
    D: tl.constexpr,
):
    dst = tl.program_id(0) * D + tl.arange(0, D)
    k = tl.arange(0, K)
    base, fraction = _position(dst, IN, OUT)
    if TAPS == IN:
        start = tl.full((D,), 0, tl.int32)
    else:
        start = tl.minimum(
            tl.maximum(base + tl.floor(fraction - A * SCALE).to(tl.int32) + 1, 0), IN - TAPS
        )
    tl.store(Starts + dst, start, dst < OUT)
    total = tl.full((D,), 0, tl.float32)
    for offset in range(triton.cdiv(TAPS, K)):
        tap = offset * K + k
        w = _weight(tap[:, None], start[None, :], base[None, :], fraction[None, :], SCALE, A)
        total += tl.sum(tl.where(tap[:, None] < TAPS, w, 0.0), 0)
    for offset in range(triton.cdiv(TAPS, K)):
        tap = offset * K + k
        w = _weight(tap[:, None], start[None, :], base[None, :], fraction[None, :], SCALE, A)
        tl.store(
            W + tap[:, None] * OUT + dst[None, :],
            w / total[None, :],
            (tap[:, None] < TAPS) & (dst[None, :] < OUT),
        )


@triton.jit
def horizontal(
    X,
    Y,
    W,
    Starts,
    IW: tl.constexpr,
    OW: tl.constexpr,
    ROWS: tl.constexpr,
    TAPS: tl.constexpr,
    B: tl.constexpr,
    R: tl.constexpr,
):
    col = (tl.program_id(0) % triton.cdiv(OW, B)) * B + tl.arange(0, B)
    row = (tl.program_id(0) // triton.cdiv(OW, B)) * R + tl.arange(0, R)
    start = tl.load(Starts + col, col < OW, 0)
    acc = tl.full((R, B), 0, tl.float32)
    for k in tl.static_range(TAPS):
        w = tl.load(W + k * OW + col, col < OW, 0)
        v = tl.load(
            X + row[:, None] * IW + start[None, :] + k,
            (row[:, None] < ROWS) & (col[None, :] < OW),
            0,
        ).to(tl.float32)
        acc = tl.fma(v, w[None, :], acc)
    tl.store(Y + row[:, None] * OW + col[None, :], acc, (row[:, None] < ROWS) & (col[None, :] < OW))


@triton.jit
def vertical(
    X,
    Y,
    W,
    Starts,
    IH: tl.constexpr,
    OH: tl.constexpr,
    WIDTH: tl.constexpr,
    TAPS: tl.constexpr,
    B: tl.constexpr,
):
    col = (tl.program_id(0) % triton.cdiv(WIDTH, B)) * B + tl.arange(0, B)
    dst = (tl.program_id(0) // triton.cdiv(WIDTH, B)) % OH
    plane = tl.program_id(0) // (triton.cdiv(WIDTH, B) * OH)
    start = tl.load(Starts + dst)
    acc = tl.full((B,), 0, tl.float32)
    for k in tl.static_range(TAPS):
        v = tl.load(X + (plane * IH + start + k) * WIDTH + col, col < WIDTH, 0).to(tl.float32)
        w = tl.load(W + k * OH + dst)
        acc = tl.fma(v, w, acc)
    tl.store(Y + (plane * OH + dst) * WIDTH + col, acc, col < WIDTH)


@triton.jit
def horizontal_wide(
    X,
    Y,
    W,
    Starts,
    IW: tl.constexpr,
    OW: tl.constexpr,
    TOTAL: tl.constexpr,
    TAPS: tl.constexpr,
    B: tl.constexpr,
    K: tl.constexpr,
):
    i = tl.program_id(0) * B + tl.arange(0, B)
    dst = i % OW
    row = i // OW
    start = tl.load(Starts + dst)
    k = tl.arange(0, K)
    acc = tl.full((B, K), 0, tl.float32)
    for offset in range(triton.cdiv(TAPS, K)):
        tap = offset * K + k
        v = tl.load(
            X + row[:, None] * IW + start[:, None] + tap[None, :],
            (i[:, None] < TOTAL) & (tap[None, :] < TAPS),
            0,
        ).to(tl.float32)
        w = tl.load(W + tap[None, :] * OW + dst[:, None], tap[None, :] < TAPS, 0)
        acc = tl.fma(v, w, acc)
    tl.store(Y + i, tl.sum(acc, 1), i < TOTAL)


@triton.jit
def vertical_wide(
    X,
    Y,
    W,
    Starts,
    IH: tl.constexpr,
    OH: tl.constexpr,
    WIDTH: tl.constexpr,
    TOTAL: tl.constexpr,
    TAPS: tl.constexpr,
    B: tl.constexpr,
    K: tl.constexpr,
):
    i = tl.program_id(0) * B + tl.arange(0, B)
    col = i % WIDTH
    dst = i // WIDTH % OH
    plane = i // (WIDTH * OH)
    start = tl.load(Starts + dst)
    k = tl.arange(0, K)
    acc = tl.full((K, B), 0, tl.float32)
    for offset in range(triton.cdiv(TAPS, K)):
        tap = offset * K + k
        v = tl.load(
            X + (plane[None, :] * IH + start[None, :] + tap[:, None]) * WIDTH + col[None, :],
            (i[None, :] < TOTAL) & (tap[:, None] < TAPS),
            0,
        ).to(tl.float32)
        w = tl.load(W + tap[:, None] * OH + dst[None, :], tap[:, None] < TAPS, 0)
        acc = tl.fma(v, w, acc)
    tl.store(Y + i, tl.sum(acc, 0), i < TOTAL)


# Opt-in first-call tuning for fixed-geometry workloads; every candidate uses
# exactly the same samples and weights. No kernel mutates the input or tables.
horizontal_tuned = triton.autotune(
    configs=[
        triton.Config({"B": b, "R": r}, num_warps=nw)
        for b, r, nw in [(64, 4, 4), (128, 4, 4), (64, 8, 8), (256, 2, 4)]
    ],
    key=["IW", "OW", "ROWS", "TAPS"],
)(horizontal)
vertical_tuned = triton.autotune(
    configs=[
        triton.Config({"B": b}, num_warps=nw)
        for b, nw in [(128, 4), (256, 4), (512, 4), (1024, 4), (1024, 8)]
    ],
    key=["IH", "OH", "WIDTH", "TAPS"],
)(vertical)
horizontal_wide_tuned = triton.autotune(
    configs=[
        triton.Config({"B": b, "K": k}, num_warps=4)
        for b, k in [(8, 64), (16, 32), (16, 64), (16, 128)]
    ],
    key=["IW", "OW", "TOTAL", "TAPS"],
)(horizontal_wide)
vertical_wide_tuned = triton.autotune(
    configs=[
        triton.Config({"B": b, "K": k}, num_warps=4)
        for b, k in [(32, 8), (64, 8), (128, 4), (128, 8)]
    ],
    key=["IH", "OH", "WIDTH", "TOTAL", "TAPS"],
)(vertical_wide)
