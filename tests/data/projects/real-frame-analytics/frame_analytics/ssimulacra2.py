"""SSIMULACRA 2 -- Sneyers' perceptual metric, as libjxl computes it.

Higher is better.  100 is a pixel-identical pair, ~90 is "visually lossless",
~50 is "clearly visible artefacts", and the score is unbounded below (a badly
broken pair lands well under zero).

What it actually is
-------------------
Six scales, three XYB channels, three error maps, two norms -- 108 sub-scores
weighted by a fitted vector and pushed through a cubic and a power law.  The
three error maps per scale/channel are:

``SSIM'``
    SSIM with the luminance denominator dropped.  The usual
    ``2*mu1*mu2 / (mu1^2 + mu2^2)`` weights errors in the darks more heavily,
    which only makes sense for linear luma -- and these values are neither
    linear nor luma, they are gamma-ish X/Y/B channels.
``ringing``
    the distorted image has an edge where the original is smooth.
``blurring``
    the original has an edge where the distorted image is smooth.

The 4-norm sits next to the mean for every one of them, which is what makes
the metric sensitive to *localised* damage: a mean cannot tell a small ugly
block apart from a slight haze spread over the frame.

Conventions this follows exactly
--------------------------------
* input is **sRGB-encoded RGB**; it is linearised with the exact piecewise
  curve, and the pyramid is built by box-downsampling in *linear* RGB, with
  the XYB conversion redone at every scale.  Downsampling an odd dimension
  repeats the last row/column, as ``Downsample()`` does with its
  ``min(ox*fx+ix, xsize-1)`` clamp.
* the blur is jxl's ``FastGaussian`` at sigma 1.5.  That is the recursive
  truncated-cosine filter of Charalampidis 2016, whose impulse response is
  *finite*: radius ``round(3.2795*sigma + 0.2546) = 5``, and the taps at
  exactly +-5 are zero because every omega_k*radius is an odd multiple of
  pi/2.  So the recursion is an 11-tap symmetric FIR and is implemented here
  as one -- see :func:`recursive_gaussian_taps`.  Out-of-bounds input is
  **zero**, not mirrored and not renormalised (libjxl reads 0 past the edge),
  so the blurred planes genuinely darken towards the border.  That is part of
  the metric; the reference in :mod:`frame_analytics.reference` runs the
  actual IIR recursion instead, which is what pins the equivalence.
* float32 maps and float64 accumulators, which is upstream's split too: the
  three error maps are computed in float, and ``SSIMMap``/``EdgeDiffMap`` sum
  them into ``double``.  So ``dtype`` here selects the precision of the
  *pipeline* -- colour, blur, moments, maps -- while the norms and the weighted
  sum are float64 either way.  It matters because ``E[x^2] - E[x]^2`` in
  float32 is a cancellation trap that cannot be fixed by centring the way
  :func:`frame_analytics.functional.ssim` does: ``num_m`` and the 0.55/0.42
  offsets tie the formula to the absolute values.  Pass ``dtype=torch.float64``
  to see how much that costs (it is ~1e-4 of a score point on natural images).

Score of fewer than 6 scales
----------------------------
Images below 8 px on a side after some halving get fewer scales, and upstream
then walks the *same* weight vector from the start -- so a 5-scale score reads
weights meant for scales 0..4 of channel X into channels Y and B.  It is a
quirk rather than a design, but it is what the reference implementation
computes, so it is reproduced here rather than corrected.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Optional, Tuple

import torch
import torch.nn.functional as F

from .functional import _maybe_compile, _prep, _separable_conv, _work_dtype

__all__ = ["ssimulacra2", "recursive_gaussian_taps", "SSIMULACRA2_WEIGHTS"]

# libjxl tools/ssimulacra2.cc
_C2 = 0.0009
_NUM_SCALES = 6

# lib/jxl/cms/opsin_params.h
_M = (
    (0.30, 1.0 - 0.078 - 0.30, 0.078),
    (0.23, 1.0 - 0.078 - 0.23, 0.078),
    (0.24342268924547819, 0.20476744424496821,
     1.0 - 0.24342268924547819 - 0.20476744424496821),
)
_OPSIN_BIAS = 0.0037930732552754493
_OPSIN_BIAS_CBRT = _OPSIN_BIAS ** (1.0 / 3.0)

# Msssim::Score(), in its own order: for each channel, for each scale, for each
# norm, three consecutive weights (ssim, ringing, blurring).
SSIMULACRA2_WEIGHTS = (
    0.0, 0.0007376606707406586, 0.0,
    0.0, 0.0007793481682867309, 0.0,
    0.0, 0.0004371155730107379, 0.0,
    1.1041726426657346, 0.00066284834129271, 0.00015231632783718752,
    0.0, 0.0016406437456599754, 0.0,
    1.8422455520539298, 11.441172603757666, 0.0,
    0.0007989109436015163, 0.000176816438078653, 0.0,
    1.8787594979546387, 10.94906990605142, 0.0,
    0.0007289346991508072, 0.9677937080626833, 0.0,
    0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053,
    0.0004550992113792063, 0.0, 0.0,
    0.0013648766163243398, 0.0, 0.0,
    0.0, 0.0, 0.0,
    7.466890328078848, 0.0, 17.445833984131262,
    0.0006235601634041466, 0.0, 0.0,
    6.683678146179332, 0.00037724407979611296, 1.027889937768264,
    225.20515300849274, 0.0, 0.0,
    19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
    176.39317598450694, 0.0, 0.0,
    24.43300999870476, 0.28520802612117757, 0.0004485436923833408,
    0.0, 0.0, 0.0,
    34.77906344483772, 44.835625328877896, 0.0,
    0.0, 0.0, 0.0,
    0.0, 0.0, 0.0,
    0.0, 0.0008680556573291698, 0.0,
    0.0, 0.0, 0.0,
    0.0, 0.0005313191874358747, 0.0,
    0.00016533814161379112, 0.0, 0.0,
    0.0, 0.0, 0.0,
    0.0004179171803251336, 0.0017290828234722833, 0.0,
    0.0020827005846636437, 0.0, 0.0,
    8.826982764996862, 23.19243343998926, 0.0,
    95.1080498811086, 0.9863978034400682, 0.9834382792465353,
    0.0012286405048278493, 171.2667255897307, 0.9807858872435379,
    0.0, 0.0, 0.0,
    0.0005130064588990679, 0.0, 0.00010854057858411537,
)
assert len(SSIMULACRA2_WEIGHTS) == 108


# --------------------------------------------------------------------------- #
# the blur
# --------------------------------------------------------------------------- #


@lru_cache(maxsize=None)
def recursive_gaussian_taps(sigma: float = 1.5) -> Tuple[float, ...]:
    """The impulse response of ``jxl::CreateRecursiveGaussian(sigma)``.

    Cached: the taps are handed to the compiled blur as a tuple of python
    floats, i.e. as part of its guard set, and there is no reason to redo a
    3x3 solve and a dozen trig calls per call to get the same eleven numbers.

    Charalampidis 2016, "Recursive Implementation of the Gaussian Filter Using
    Truncated Cosine Functions": the kernel is a sum of three cosines truncated
    at radius ``N = round(3.2795*sigma + 0.2546)``, and libjxl evaluates it with
    a marginally-stable IIR recursion rather than as taps.  Both are the same
    filter; taps are what a convolution wants.

    Returned as ``2N+1`` values summing to 1, computed in double exactly as
    ``CreateRecursiveGaussian`` computes its coefficients.
    """
    radius = round(3.2795 * sigma + 0.2546)
    pi_div_2r = math.pi / (2.0 * radius)
    omega = (pi_div_2r, 3.0 * pi_div_2r, 5.0 * pi_div_2r)

    p = (+1.0 / math.tan(0.5 * omega[0]),          # (37)
         -1.0 / math.tan(0.5 * omega[1]),
         +1.0 / math.tan(0.5 * omega[2]))
    r = (+p[0] * p[0] / math.sin(omega[0]),        # (44)
         -p[1] * p[1] / math.sin(omega[1]),
         +p[2] * p[2] / math.sin(omega[2]))
    rho = [math.exp(-0.5 * sigma * sigma * w * w) / radius for w in omega]  # (50)

    d13 = p[0] * r[1] - r[0] * p[1]                # (52)
    d35 = p[1] * r[2] - r[1] * p[2]
    d51 = p[2] * r[0] - r[2] * p[0]
    zeta_15 = d35 / d13
    zeta_35 = d51 / d13

    a = [[p[0], p[1], p[2]], [r[0], r[1], r[2]], [zeta_15, zeta_35, 1.0]]  # (56)
    gamma = [1.0, radius * radius - sigma * sigma,                         # (55)
             zeta_15 * rho[0] + zeta_35 * rho[1] + rho[2]]
    beta = _solve3(a, gamma)                                               # (53)

    # (39): the weights are normalised, so the taps sum to 1 by construction.
    if abs(beta[0] * p[0] + beta[1] * p[1] + beta[2] * p[2] - 1.0) > 1e-12:
        raise RuntimeError("recursive Gaussian solve did not normalise")

    return tuple(
        sum(beta[k] * math.cos(omega[k] * t) for k in range(3))
        for t in range(-radius, radius + 1)
    )


def _solve3(a, b):
    """3x3 solve by Cramer's rule -- keeps this module numpy-free."""
    def det(m):
        return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))

    d = det(a)
    if d == 0.0:
        raise RuntimeError("singular matrix in recursive Gaussian solve")
    out = []
    for col in range(3):
        m = [[b[row] if c == col else a[row][c] for c in range(3)]
             for row in range(3)]
        out.append(det(m) / d)
    return out


_blur_cache: dict = {}
_weight_cache: dict = {}


def _blur_window(sigma: float, device, dtype) -> torch.Tensor:
    """Cached tap vector on the right device.

    Cached for the reason every other window in this package is: building it
    per call is a host-to-device copy, which syncs and is illegal inside a CUDA
    graph capture.
    """
    key = (sigma, device, dtype)
    w = _blur_cache.get(key)
    if w is None:
        w = torch.tensor(recursive_gaussian_taps(sigma),
                         dtype=torch.float64).to(device=device, dtype=dtype)
        _blur_cache[key] = w
    return w


def _weights_tensor(device) -> torch.Tensor:
    key = device
    w = _weight_cache.get(key)
    if w is None:
        w = torch.tensor(SSIMULACRA2_WEIGHTS, dtype=torch.float64, device=device)
        _weight_cache[key] = w
    return w


_opsin_cache: dict = {}


def _opsin_cols(device, dtype) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The opsin matrix as three ``(1,3,1,1)`` columns, cached per device.

    Columns, not rows: broadcasting a column against one input plane gives all
    three mixed planes in one kernel, so the 3x3 costs three multiplies and two
    adds instead of nine and six.  Cached for the reason
    :func:`_blur_window` is -- building them per call is a host-to-device copy,
    which syncs and is illegal inside a CUDA graph capture.
    """
    key = (device, dtype)
    cols = _opsin_cache.get(key)
    if cols is None:
        cols = tuple(
            torch.tensor([_M[0][i], _M[1][i], _M[2][i]], dtype=torch.float64)
            .view(1, 3, 1, 1).to(device=device, dtype=dtype)
            for i in range(3)
        )
        _opsin_cache[key] = cols
    return cols


def _blur_h(x: torch.Tensor, taps) -> torch.Tensor:
    """One zero-padded horizontal pass, written as shifted adds.

    ``taps`` arrives as a tuple of python floats, so ``torch.compile`` bakes
    them in as literals and emits a single kernel that reads each input once
    and accumulates 11 neighbours in registers. That is 2.6x faster than
    handing cuDNN an 11x1 convolution over a 1-channel batch, which is what
    this used to do -- and on CUDA the two agree bit for bit, because both
    accumulate the taps in the same order.
    """
    k = len(taps)
    w = x.shape[-1]
    xp = F.pad(x, (k // 2, k // 2, 0, 0))
    out = taps[0] * xp[..., 0:w]
    for i in range(1, k):
        out = out + taps[i] * xp[..., i:i + w]
    return out


def _blur_v(x: torch.Tensor, taps) -> torch.Tensor:
    """The vertical half of the same pass."""
    k = len(taps)
    h = x.shape[-2]
    xp = F.pad(x, (0, 0, k // 2, k // 2))
    out = taps[0] * xp[..., 0:h, :]
    for i in range(1, k):
        out = out + taps[i] * xp[..., i:i + h, :]
    return out


def _blur_conv(planes: torch.Tensor, win: torch.Tensor) -> torch.Tensor:
    """The same filter as two 1-D convolutions -- the uncompiled path.

    Eager shifted adds would materialise a full-resolution temporary per tap,
    so when there is no Inductor to fuse them use the shared separable
    convolution, including its channels-last CPU float32 path.
    """
    return _separable_conv(planes, win, padding=win.numel() // 2)


def _scale_stats(lin1, lin2, mr, mg, mb, taps):
    """One pyramid scale, linear RGB in, the six per-channel norms out.

    XYB for both images, the four-group moment pack, the separable blur and
    the map/norm epilogue, as a single ``torch.compile`` region. The same
    arithmetic used to live in four compiled functions with eager glue
    between them -- the ``cat`` of the pack, the ``dx``/square elementwise
    ops -- and that glue was pure memory traffic: every operand is
    frame-shaped, so each eager op is another full read+write of the frame.
    Fused, Inductor folds the pack construction into the blur's first pass
    and the whole scale runs in a handful of kernels.

    Zero padding in the blur is not a convenience, it is the definition:
    libjxl's scan reads 0 outside the image and does not renormalise, so the
    blurred border is genuinely attenuated and the metric was tuned with that
    in it.
    """
    x1 = _xyb_positive(lin1, mr, mg, mb)
    x2 = _xyb_positive(lin2, mr, mg, mb)

    # One blur over 12 packed planes rather than five blurs of three.
    # Upstream blurs x1, x2, x1^2, x2^2 and x1*x2; the last three are only
    # ever read as s11 + s22 and as s11 + s22 - 2*s12 (see _scale_maps),
    # and the blur is a linear operator, so summing first and blurring the
    # sums is the same arithmetic over four groups instead of five.
    #
    # That is 20% of the filter's work, but only where the filter is what
    # the wall clock is waiting for: measured (pre-fusion) against the same
    # tree with the pack folding alone reverted, it was worth 1.056x at 1080p
    # and 1.052x at 720p, and nothing at all at 360p (1.006x against a 1.007x
    # A/A null), where the pyramid is bound by launch count rather than by
    # pixels. It also carries the whole of the memory saving, because three
    # fewer planes are in flight through the blur.
    #
    # Blurring (x1 - x2)^2 rather than reconstructing it from s11, s22 and
    # s12 is also better conditioned; see _scale_maps.
    dx = x1 - x2
    f = _blur_v(_blur_h(torch.cat([x1, x2, x1 * x1 + x2 * x2, dx * dx],
                                  dim=1), taps), taps)
    # Viewed as (N, 4, 3, H*W) rather than split on the channel axis: the
    # four groups are then plain views whatever the batch size, where
    # `f.split(3, 1)` hands the epilogue strided planes it would have to
    # copy before it could flatten them.
    fv = f.view(f.shape[0], 4, 3, -1)
    flat = x1.shape[0], 3, -1
    return _scale_maps(x1.reshape(*flat), x2.reshape(*flat),
                       fv[:, 0], fv[:, 1], fv[:, 2], fv[:, 3])


def _scale_stats_eager(lin1, lin2, mr, mg, mb, win):
    """The eager twin of :func:`_scale_stats`.

    Same arithmetic; only the blur changes form. Shifted adds would
    materialise a full-resolution temporary per tap with no Inductor to fuse
    them, so the blur runs as two plain convolutions instead -- see
    :func:`_blur_conv`.
    """
    x1 = _xyb_positive(lin1, mr, mg, mb)
    x2 = _xyb_positive(lin2, mr, mg, mb)
    dx = x1 - x2
    f = _blur_conv(torch.cat([x1, x2, x1 * x1 + x2 * x2, dx * dx], dim=1), win)
    fv = f.view(f.shape[0], 4, 3, -1)
    flat = x1.shape[0], 3, -1
    return _scale_maps(x1.reshape(*flat), x2.reshape(*flat),
                       fv[:, 0], fv[:, 1], fv[:, 2], fv[:, 3])


# --------------------------------------------------------------------------- #
# colour
# --------------------------------------------------------------------------- #


def _srgb_to_linear(v: torch.Tensor) -> torch.Tensor:
    """The exact piecewise sRGB EOTF, on data already scaled to [0, 1]."""
    return torch.where(v <= 0.04045, v / 12.92,
                       ((v + 0.055) / 1.055).clamp_min(0.0).pow(2.4))


def _linearize_pair(x4, y4, inv_l, wdt):
    """Input scaling plus the EOTF for both frames, as one compiled region.

    Eager, this is nine full-resolution kernels per image -- the cast, the
    scale, the compare, the two branch chains and the ``where`` -- every one
    of them another full read+write of the frame. Fused, each input is read
    once. It runs once per call and only at full resolution, so it costs a
    single Dynamo cache entry per resolution.
    """
    return (_srgb_to_linear(x4.to(wdt) * inv_l),
            _srgb_to_linear(y4.to(wdt) * inv_l))


def _xyb_positive(lin: torch.Tensor, mr, mg, mb) -> torch.Tensor:
    """Linear sRGB ``(N,3,H,W)`` -> the 0..1-ish XYB of ``MakePositiveXYB``.

    ``ToXYB`` at libjxl's default intensity target of 255 nits leaves the
    opsin matrix unscaled, so this is the plain absorbance + cube root, and
    then the three affine adjustments that put X, Y and B-Y into roughly the
    same 0..1 range -- which is what lets one C2 serve all three channels.

    ``mr``/``mg``/``mb`` are the opsin *columns* from :func:`_opsin_cols`.
    Mixing against them rather than against nine python scalars is the same
    arithmetic in the same order -- ``M[j][0]*r + M[j][1]*g + M[j][2]*b`` for
    every ``j`` -- but it is three broadcast kernels over the whole frame
    instead of nine over a third of it, and likewise one ``clamp``/``pow``/
    ``sub`` instead of three. Same element count, a third of the launches, and
    this function runs twice per scale, twelve times per call: it was 444 of
    the ~1700 device ops a score costs.

    The mix itself is bitwise identical to the nine-scalar form everywhere.
    The *function* is bitwise identical on CUDA in both dtypes and on CPU in
    float64; on CPU in float32 it moves by up to 4.8e-7, which is ATen's
    vectorised ``pow(1/3)`` returning a 1-ulp different value on a 3-channel
    contiguous tensor than on three 1-channel ones, amplified by the ``x14``
    on X. That is a kernel-layout artefact of the wider tensor, not a
    different sum.
    """
    r = lin[:, 0:1]
    g = lin[:, 1:2]
    b = lin[:, 2:3]
    mixed = (mr * r + mg * g + mb * b + _OPSIN_BIAS).clamp_min(0.0)
    mixed = mixed.pow(1.0 / 3.0) - _OPSIN_BIAS_CBRT
    m0 = mixed[:, 0:1]
    m1 = mixed[:, 1:2]
    m2 = mixed[:, 2:3]

    x = 0.5 * (m0 - m1)
    y = 0.5 * (m0 + m1)
    return torch.cat([x * 14.0 + 0.42, y + 0.01, (m2 - y) + 0.55], dim=1)


def _downsample2(lin: torch.Tensor) -> torch.Tensor:
    """2x2 box downsample with libjxl's edge clamp.

    ``Downsample()`` reads ``min(ox*2+ix, xsize-1)``, i.e. an odd trailing
    row/column is averaged with a repeat of itself rather than dropped, so the
    output is ``ceil(size/2)`` and not ``floor``.  Replicate-padding first and
    then taking a clean 2x2 mean is the same arithmetic.
    """
    h, w = lin.shape[-2], lin.shape[-1]
    if h % 2 or w % 2:
        lin = F.pad(lin, (0, w % 2, 0, h % 2), mode="replicate")
    return F.avg_pool2d(lin, 2)


# --------------------------------------------------------------------------- #
# the two error maps
# --------------------------------------------------------------------------- #


def _norms(v: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """``(mean, 4-norm)`` per image and channel, both float64 ``(N,3)``."""
    one = v.mean(dim=-1, dtype=torch.float64)
    q = v * v
    four = (q * q).mean(dim=-1, dtype=torch.float64).pow(0.25)
    return one, four


def _scale_maps(x1, x2, mu1, mu2, sp, sd):
    """The six per-channel norms of one scale, as one ``(N, 3, 6)`` tensor.

    Takes its planes **flat**, ``(N, 3, H*W)``. Two reasons, both about the
    compiled kernel rather than the arithmetic: a reduction over one axis
    tiles better than one over two (0.38 ms against 0.55 at 1080p), and a
    single trailing dimension is the shape a dynamic-shape kernel handles
    well, which is what lets one compiled entry serve all six scales -- see
    the call site.

    One region: every intermediate is frame-shaped, and the three maps share
    ``mu1``/``mu2``, so splitting them would re-read the same planes 3 times.

    ``sp`` and ``sd`` are ``blur(x1^2 + x2^2)`` and ``blur((x1 - x2)^2)``,
    which is *four* blurred groups where upstream has five -- see the call
    site for why that is the same arithmetic.
    """
    # Upstream writes this as 1 - num_m * num_s / den_s with
    # num_m = 1 - (mu1-mu2)^2. Factoring the subtraction into the numerator --
    #   1 - (1-q)*ns/ds  ==  ((ds - ns) + q*ns) / ds
    # -- is algebraically the same and better in two ways. d is small on a good
    # match, so the original spends its precision computing 1 minus something
    # very close to 1; and on an identical pair ds and ns are bitwise equal and
    # q is exactly 0, so the numerator is exactly 0 and d is exactly 0 whatever
    # the divide does with it. That matters because Inductor's Triton backend
    # emits an approximate fp32 divide (a/a comes back 1 +- 1e-7), and this
    # metric's 100 - 10*s^0.628 has infinite slope at s = 0 -- written the
    # upstream way, an identical pair scores 99.99 on CUDA.
    #
    # ds - ns is then v11 + v22 - 2*v12, which telescopes:
    #   (s11 - m1^2) + (s22 - m2^2) - 2*(s12 - m1*m2)
    #     == (s11 + s22 - 2*s12) - (m1 - m2)^2  ==  sd - q
    # so the whole numerator needs only sd, and den_s needs only s11 + s22.
    # Neither s11, s22 nor s12 is wanted on its own, and blur is linear, so
    # the sums are formed *before* the blur rather than after it. Computing
    # sd as blur((x1-x2)^2) also removes the one cancellation left in the
    # expression: s11 + s22 - 2*s12 subtracts three nearly-equal numbers on a
    # good match, where blur of a square is non-negative term by term.
    q = (mu1 - mu2) * (mu1 - mu2)
    den_s = (sp - (mu1 * mu1 + mu2 * mu2)) + _C2
    num_s = (den_s - sd) + q

    d = (((sd - q) + q * num_s) / den_s).clamp_min(0.0)

    # (1 + |dist - blur(dist)|) / (1 + |orig - blur(orig)|) - 1, with the same
    # subtraction folded in: above zero the distorted image has structure the
    # original does not (ringing, banding, blocking), below zero the original
    # had structure that did not survive.
    e1 = (x1 - mu1).abs()
    e2 = (x2 - mu2).abs()
    e = (e2 - e1) / (1.0 + e1)
    art = e.clamp_min(0.0)
    lost = (-e).clamp_min(0.0)

    ssim1, ssim4 = _norms(d)
    art1, art4 = _norms(art)
    lost1, lost4 = _norms(lost)
    return torch.stack([ssim1, ssim4, art1, art4, lost1, lost4], dim=-1)


def ssimulacra2(
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    data_range: Optional[float] = None,
    reduction: str = "mean",
    dtype: Optional[torch.dtype] = None,
    crop_border: int = 0,
) -> torch.Tensor:
    """SSIMULACRA 2 (Sneyers 2022/2023). Higher is better; 100 is identical.

    Parameters
    ----------
    x, y
        Original and distorted, same shape, ``(3,H,W)`` or ``(N,3,H,W)``, any
        dtype.  **sRGB-encoded RGB** -- the metric linearises them itself, so
        handing it linear-light data silently scores something else.  A
        1-channel input is replicated to three, which is what upstream does
        with a grayscale image.  Both must be at least 8x8.
    data_range
        Input scale: 255 for integers, 1.0 for floats unless given.
    reduction
        ``"mean"`` -> scalar over the batch. ``"none"`` -> ``(N,)``.
    dtype
        Compute dtype, float32 by default -- which is what upstream uses and
        therefore what its published scores carry.  float64 is available and
        moves a typical score by ~1e-4.
    crop_border
        Drop this many pixels from every edge first.  Not a SSIMULACRA 2
        convention; it is here for parity with the rest of the package.

    Notes
    -----
    The order of arguments matters, unlike SSIM: the ringing and blurring maps
    are asymmetric, so ``ssimulacra2(a, b) != ssimulacra2(b, a)``.  The first
    argument is the original.

    Differentiable, but a poor loss as-is: the final ``100 - 10*s^0.628`` has
    an infinite derivative as the pair converges, the same failure mode
    :func:`frame_analytics.functional.gmsd` has.

    >>> import frame_analytics as fa
    >>> fa.ssimulacra2(orig, dist, data_range=255.0)
    """
    if reduction not in ("mean", "none"):
        raise ValueError(f"reduction must be 'mean' or 'none', got {reduction!r}")

    x4, y4, L, _ = _prep(x, y, None, crop_border, data_range)
    wdt = _work_dtype(x4, dtype)
    if wdt not in (torch.float32, torch.float64):
        raise ValueError(f"SSIMULACRA 2 needs a floating compute dtype, got {wdt}")

    c = x4.shape[1]
    if c == 1:
        x4 = x4.expand(-1, 3, -1, -1)
        y4 = y4.expand(-1, 3, -1, -1)
    elif c != 3:
        raise ValueError(f"SSIMULACRA 2 needs 1- or 3-channel RGB, got {c} channels")
    if min(x4.shape[-2], x4.shape[-1]) < 8:
        raise ValueError(
            f"SSIMULACRA 2 needs at least 8x8, got {tuple(x4.shape[-2:])}")

    # No .active branch: the eager form of this one is the same expression,
    # and _LazyCompiled already runs it eagerly when compile is off.
    # Elementwise-only: dynamic costs nothing here (no reduction tiling),
    # so one entry serves all resolutions instead of one per resolution.
    linz = _maybe_compile(_linearize_pair, "ssimu2:linearize", dynamic=True)
    lin1, lin2 = linz(x4, y4, 1.0 / L, wdt)
    win = _blur_window(1.5, x4.device, wdt)
    mr, mg, mb = _opsin_cols(x4.device, wdt)
    taps = recursive_gaussian_taps(1.5)
    # dynamic=False: static reduction tiles the (N,3,H*W) epilogue in 0.56 ms
    # where the dynamic one takes 7.7 ms at 1080p. Cost is one Dynamo entry
    # per shape. One wrapper for all six scales = 6 entries per resolution
    # against the per-code-object limit of 8, so the 2nd resolution falls back
    # to eager (~2.4x slower). One wrapper per scale index = 1 entry per
    # resolution per cache = 8 resolutions before eviction, same 6 compiles
    # for the single-resolution (video) case. Each torch.compile() object has
    # its own Dynamo cache even though the underlying code object is shared,
    # so sharding is pure cache sharding with identical arithmetic.
    fused_scales = [_maybe_compile(_scale_stats, f"ssimu2:scale{i}",
                                   dynamic=False)
                    for i in range(_NUM_SCALES)]

    per_scale = []
    prev_h, prev_w = lin1.shape[-2], lin1.shape[-1]
    for scale in range(_NUM_SCALES):
        # Upstream tests the *previous* scale's size, because it shrinks its
        # buffers after the check. So a scale is computed iff the one above it
        # was at least 8x8, which lets the last one be smaller than that.
        if prev_h < 8 or prev_w < 8:
            break
        if scale:
            lin1 = _downsample2(lin1)
            lin2 = _downsample2(lin2)

        fn = fused_scales[scale]
        if fn.active:
            per_scale.append(fn(lin1, lin2, mr, mg, mb, taps))
        else:
            per_scale.append(_scale_stats_eager(lin1, lin2, mr, mg, mb, win))
        prev_h, prev_w = lin1.shape[-2], lin1.shape[-1]

    # Msssim::Score()'s order: channel-major, then scale, then norm, then the
    # three maps. Flattened into one (N, 108) dot product rather than 108
    # scalar multiplies, each of which would be its own kernel launch.
    #
    # A scale's six norms sit as (map, norm) pairs -- [ssim1, ssim4, art1,
    # art4, lost1, lost4], i.e. index 2*map + norm -- so the whole reordering
    # is one permute of the stacked (N, scale, ch, map, norm) block into
    # (N, ch, scale, norm, map) and a flatten, rather than gathering 108
    # per-column views one python slice at a time. Same element order in the
    # result, so the weighted sum below reduces in the same sequence.
    #
    # When there are fewer than 6 scales this still reads the weight vector
    # from the start (see the module docstring): the flatten runs ch-major
    # over the scales that exist, exactly as the slice loop did.
    raw = (torch.stack(per_scale, dim=1)      # (N, scale, ch, 6)
           .unflatten(-1, (3, 2))             # (N, scale, ch, map, norm)
           .permute(0, 2, 1, 4, 3)            # (N, ch, scale, norm, map)
           .flatten(1).abs())
    w = _weights_tensor(x4.device)[: raw.shape[-1]]
    s = (raw * w).sum(dim=-1)

    s = s * 0.9562382616834844
    s = (2.326765642916932 * s - 0.020884521182843837 * s * s
         + 6.248496625763138e-05 * s * s * s)
    # s <= 0 means the weighted error landed at or below zero, i.e. a perfect
    # match; the power law is undefined there and upstream returns 100 flat.
    score = torch.where(s > 0.0,
                        100.0 - 10.0 * s.clamp_min(0.0).pow(0.6276336467831387),
                        torch.full_like(s, 100.0))
    return score if reduction == "none" else score.mean()
