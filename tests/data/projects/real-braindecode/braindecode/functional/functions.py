# Authors: Robin Schirrmeister <robintibor@gmail.com>
#          Bruno Aristimunha <b.aristimunha@gmail.com>
#          Sarthak Tayal <sarthaktayal2@gmail.com>
#
# License: BSD (3-clause)

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F


def square(x):
    return x * x


def safe_log(x, eps: float = 1e-6) -> torch.Tensor:
    """Prevents :math:`log(0)` by using :math:`log(max(x, eps))`."""
    return torch.log(torch.clamp(x, min=eps))


def identity(x):
    return x


def drop_path(
    x, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True
):
    """Drop paths (Stochastic Depth) per sample.

    Notes: This implementation is taken from timm library.

    All credit goes to Ross Wightman.

    Parameters
    ----------
    x : torch.Tensor
        input tensor
    drop_prob : float, optional
        probability of dropping a path, by default 0.0
    training : bool, optional
        whether the model is in training mode, by default False
    scale_by_keep : bool, optional
        whether to scale output by (1/keep_prob) during training, by default True

    Returns
    -------
    torch.Tensor
        output tensor

    Notes from Ross Wightman:
    (when applied in main path of residual blocks)
    This is the same as the DropConnect impl I created for EfficientNet,
    etc. networks, however,
    the original name is misleading as 'Drop Connect' is a different form
    of dropout in a separate paper...
    See discussion : https://github.com/tensorflow/tpu/issues/494#issuecomment-532968956
    ... I've opted for changing the layer and argument names to 'drop path'
    rather than mix DropConnect as a layer name and use
    'survival rate' as the argument.
    """
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (
        x.ndim - 1
    )  # work with diff dim tensors, not just 2D ConvNets
    probabilities = torch.full(shape, keep_prob, dtype=torch.float32, device=x.device)
    random_tensor = torch.bernoulli(probabilities).to(dtype=x.dtype)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor = random_tensor / keep_prob
    return x * random_tensor


def _get_gaussian_kernel1d(kernel_size: int, sigma: float) -> torch.Tensor:
    """
    Generates a 1-dimensional Gaussian kernel based on the specified kernel.

    size and standard deviation (sigma).
    This kernel is useful for Gaussian smoothing or filtering operations in
    image processing. The function calculates a range limit to ensure the kernel
    effectively covers the Gaussian distribution. It generates a tensor of
    specified size and type, filled with values distributed according to a
    Gaussian curve, normalized using a softmax function
    to ensure all weights sum to 1.

    Parameters
    ----------
    kernel_size : int
    sigma : float

    Returns
    -------
    kernel1d : torch.Tensor

    Notes
    -----
    Code copied and modified from TorchVision:
    https://github.com/pytorch/vision/blob/main/torchvision/transforms/_functional_tensor.py#L725-L732
    All rights reserved.

    LICENSE in https://github.com/pytorch/vision/blob/main/LICENSE
    """
    ksize_half = (kernel_size - 1) * 0.5
    x = torch.linspace(-ksize_half, ksize_half, steps=kernel_size)
    pdf = torch.exp(-0.5 * (x / sigma).pow(2))
    kernel1d = pdf / pdf.sum()
    return kernel1d


def hilbert_freq(x: torch.Tensor, forward_fourier: bool = True) -> torch.Tensor:
    r"""
    Compute the Hilbert transform using PyTorch, separating the real and
    imaginary parts.

    The analytic signal :math:`x_a(t)` of a real-valued signal :math:`x(t)`
    is defined as:

    .. math::

        x_a(t) = x(t) + i y(t) = \mathcal{F}^{-1} \{ U(f) \mathcal{F}\{x(t)\} \}

    where:
    - :math:`\mathcal{F}` is the Fourier transform,
    - :math:`U(f)` is the unit step function,
    - :math:`y(t)` is the Hilbert transform of :math:`x(t)`.


    Parameters
    ----------
    input : torch.Tensor
        Input tensor. The expected shape depends on the `forward_fourier` parameter:

        - If `forward_fourier` is True:
            (..., seq_len)
        - If `forward_fourier` is False:
            (..., seq_len / 2 + 1, 2)

    forward_fourier : bool, optional
        Determines the format of the input tensor.
        - If True, the input is in the forward Fourier domain.
        - If False, the input contains separate real and imaginary parts.
        Default is True.

    Returns
    -------
    torch.Tensor
        Output tensor with shape (..., seq_len, 2), where the last dimension represents
        the real and imaginary parts of the Hilbert transform.

    Examples
    --------
    >>> import torch
    >>> input = torch.randn(10, 100)  # Example input tensor
    >>> output = hilbert_transform(input)
    >>> print(output.shape)
    torch.Size([10, 100, 2])

    Notes
    -----
    The implementation is matching scipy implementation, but using torch.
    https://github.com/scipy/scipy/blob/v1.14.1/scipy/signal/_signaltools.py#L2287-L2394

    """
    if forward_fourier:
        x = torch.fft.rfft(x, norm=None, dim=-1)
        x = torch.view_as_real(x)
    x = x * 2.0
    x[..., 0, :] = x[..., 0, :] / 2.0  # Don't multiply the DC-term by 2
    x = F.pad(
        x, [0, 0, 0, x.shape[-2] - 2]
    )  # Fill Fourier coefficients to retain shape
    x = torch.view_as_complex(x)
    x = torch.fft.ifft(x, norm=None, dim=-1)  # returns complex signal
    x = torch.view_as_real(x)

    return x


def plv_time(
    x: torch.Tensor, forward_fourier: bool = True, epsilon: float = 1e-6
) -> torch.Tensor:
    """Compute the Phase Locking Value (PLV) metric in the time domain.

    The Phase Locking Value (PLV) is a measure of the synchronization between
    different channels by evaluating the consistency of phase differences
    over time. It ranges from 0 (no synchronization) to 1 (perfect
    synchronization) [Lachaux1999]_.

    Parameters
    ----------
    x : torch.Tensor
        Input tensor containing the signal data.

        - If `forward_fourier` is `True`, the shape should be `(..., channels, time)`.
        - If `forward_fourier` is `False`, the shape should be `(..., channels, freqs, 2)`,
          where the last dimension represents the real and imaginary parts.

    forward_fourier : bool, optional
        Specifies the format of the input tensor `x`.

        - If `True`, `x` is assumed to be in the time domain.
        - If `False`, `x` is assumed to be in the Fourier domain with separate real and
          imaginary components.

        Default is `True`.
    epsilon : float, default 1e-6
        Small numerical value to ensure positivity constraint on the complex part

    Returns
    -------
    plv : torch.Tensor
        The Phase Locking Value matrix with shape `(..., channels, channels)`. Each
        element `[i, j]` represents the PLV between channel `i` and channel `j`.

    References
    ----------
    .. [Lachaux1999] Lachaux, J. P., Rodriguez, E., Martinerie, J., & Varela, F. J. (1999).
        Measuring phase synchrony in brain signals. Human brain mapping,
        8(4), 194-208.
    """
    # Compute the analytic signal using the Hilbert transform.
    # x_a has separate real and imaginary parts.
    analytic_signal = hilbert_freq(x, forward_fourier)
    # Calculate the amplitude (magnitude) of the analytic signal.
    # Adding a small epsilon (1e-6) to avoid division by zero.
    amplitude = torch.sqrt(
        analytic_signal[..., 0] ** 2 + analytic_signal[..., 1] ** 2 + 1e-6
    )
    # Normalize the analytic signal to obtain unit vectors (phasors).
    unit_phasor = analytic_signal / amplitude.unsqueeze(-1)

    # Compute the real part of the outer product between phasors of
    # different channels.
    real_real = torch.matmul(unit_phasor[..., 0], unit_phasor[..., 0].transpose(-2, -1))

    # Compute the imaginary part of the outer product between phasors of
    # different channels.
    imag_imag = torch.matmul(unit_phasor[..., 1], unit_phasor[..., 1].transpose(-2, -1))

    # Compute the cross-terms for the real and imaginary parts.
    real_imag = torch.matmul(unit_phasor[..., 0], unit_phasor[..., 1].transpose(-2, -1))
    imag_real = torch.matmul(unit_phasor[..., 1], unit_phasor[..., 0].transpose(-2, -1))

    # Combine the real and imaginary parts to form the complex correlation.
    correlation_real = real_real + imag_imag
    correlation_imag = real_imag - imag_real

    # Determine the number of time points (or frequency bins if in Fourier domain).
    time = amplitude.shape[-1]

    # Calculate the PLV by averaging the magnitude of the complex correlation over time.
    # epsilon is small numerical value to ensure positivity constraint on the complex part
    plv_matrix = (
        1 / time * torch.sqrt(correlation_real**2 + correlation_imag**2 + epsilon)
    )

    return plv_matrix


# -----------------------------------------------------------------------------
# DANCE functional helpers
#
# Authors: Bruno Aristimunha <b.aristimunha@gmail.com>
#
# License: MIT
#
# Ported from the DANCE event-detection model (facebookresearch/dance, MIT).
# -----------------------------------------------------------------------------


def iou_1d(s1, e1, s2, e2, eps: float = 1e-7):
    """ELEMENTWISE 1-D temporal IoU. All four inputs share the same shape S
    (e.g. ``(B, Q)``); returns IoU of shape S. Used by ``DanceLoss`` on the
    matched ``(B, Q)`` spans. For (Q,)x(T,) pairwise IoU use ``pairwise_iou_1d``.
    """
    inter = (torch.minimum(e1, e2) - torch.maximum(s1, s2)).clamp(min=0)
    union = (e1 - s1) + (e2 - s2) - inter
    return inter / (union + eps)


def pairwise_iou_1d(s1, e1, s2, e2, eps: float = 1e-7):
    """PAIRWISE 1-D temporal IoU. ``s1,e1`` shape ``(Q,)``, ``s2,e2`` shape
    ``(T,)``; returns ``(Q, T)`` (broadcast ``[:, None]`` x ``[None, :]``).
    Transcribed from ``dance/matcher.py:33-39`` (``_pairwise_iou``). Used by
    ``HungarianMatcher`` to build the ``(Q, n_targets)`` cost matrix.
    """
    inter_start = torch.maximum(s1[:, None], s2[None, :])
    inter_end = torch.minimum(e1[:, None], e2[None, :])
    inter = (inter_end - inter_start).clamp(min=0)
    union = (e1 - s1)[:, None] + (e2 - s2)[None, :] - inter
    return inter / (union + eps)


def daubechies_filters(n_vanishing: int) -> torch.Tensor:
    r"""Daubechies ``db<n_vanishing>`` wavelet decomposition filters.

    Computes the orthogonal decomposition (analysis) low-pass and high-pass
    filters by spectral factorisation of the Daubechies half-band (Bezout)
    polynomial, so no external wavelet library (PyWavelets, ptwt) is required.
    For ``n_vanishing=4`` the result equals ``pywt.Wavelet("db4").dec_lo`` /
    ``.dec_hi`` to machine precision (bit-identical once cast to ``float32``).

    Parameters
    ----------
    n_vanishing : int
        Number of vanishing moments (the ``N`` in ``dbN``). The filters have
        ``2 * n_vanishing`` taps.

    Returns
    -------
    torch.Tensor
        Shape ``(2, 2 * n_vanishing)`` whose rows are the low-pass and high-pass
        decomposition filters ``[dec_lo, dec_hi]``.

    Notes
    -----
    Half-band polynomial :math:`P(y) = \sum_{k=0}^{N-1} \binom{N-1+k}{k} y^k`
    with :math:`y = (1 - \cos\omega)/2`. Its roots are mapped to the
    minimum-phase (:math:`|z| < 1`) roots of :math:`z^2 - 2(1-2y)z + 1`; the
    analysis low-pass is :math:`H(z) = (1+z)^N` times that spectral factor
    (normalised so it sums to :math:`\sqrt 2`), and the high-pass is the
    quadrature mirror :math:`g_k = (-1)^{k+1} h_{L-1-k}`.
    """
    n = n_vanishing
    poly = np.array([math.comb(n - 1 + k, k) for k in range(n)], dtype=float)
    z_inside = []
    for y in np.roots(poly[::-1]):
        b = -2.0 * (1.0 - 2.0 * y)
        disc = np.sqrt(b * b - 4.0 + 0j)
        r1, r2 = (-b + disc) / 2.0, (-b - disc) / 2.0
        z_inside.append(r1 if abs(r1) < 1.0 else r2)
    low = np.poly([-1.0] * n + z_inside).real
    low *= math.sqrt(2.0) / low.sum()
    dec_lo = low[::-1]  # pywt stores the time-reversed decomposition low-pass
    length = len(dec_lo)
    dec_hi = np.array(
        [(-1.0) ** (k + 1) * dec_lo[length - 1 - k] for k in range(length)]
    )
    return torch.tensor(np.stack([dec_lo, dec_hi]), dtype=torch.float32)


def dwt_max_level(n_times: int, filter_len: int) -> int:
    """Maximum number of discrete wavelet decomposition levels.

    Matches ``pywt.dwt_max_level`` = ``floor(log2(n_times / (filter_len - 1)))``.

    Parameters
    ----------
    n_times : int
        Length of the signal.
    filter_len : int
        Number of wavelet filter taps.

    Returns
    -------
    int
        Maximum decomposition level (``0`` if the signal is shorter than the
        filter).
    """
    if n_times < filter_len:
        return 0
    return max(0, int(math.floor(math.log2(n_times / (filter_len - 1)))))


def wavelet_decomposition(
    x: torch.Tensor, filters: torch.Tensor, n_levels: int | None = None
) -> torch.Tensor:
    r"""Multilevel discrete wavelet decomposition with periodic boundary.

    A cascade of strided convolutions with circular padding, bit-identical to
    ``pywt`` / ``ptwt`` ``wavedec(mode="periodic")``. The approximation and
    detail coefficients of every level are concatenated along the last axis as
    ``[cA_n, cD_n, cD_{n-1}, ..., cD_1]``.

    Parameters
    ----------
    x : torch.Tensor
        Input signal of shape ``(..., n_times)``.
    filters : torch.Tensor
        Decomposition filters of shape ``(2, filter_len)`` =
        ``[low-pass, high-pass]`` (e.g. from :func:`daubechies_filters`).
    n_levels : int, optional
        Number of decomposition levels. Defaults to the maximum
        (:func:`dwt_max_level`).

    Returns
    -------
    torch.Tensor
        Concatenated coefficients of shape ``(..., dwt_len)``.
    """
    filter_len = filters.shape[-1]
    if n_levels is None:
        n_levels = dwt_max_level(x.shape[-1], filter_len)
    leading = x.shape[:-1]
    approx = x.reshape(-1, x.shape[-1])
    # Flip the taps so conv1d (cross-correlation) realises the wavelet convolution.
    weight = filters.flip(-1).unsqueeze(1).to(device=approx.device, dtype=approx.dtype)
    details = []
    for _ in range(n_levels):
        pad = (2 * filter_len - 3) // 2
        padded = F.pad(
            approx.unsqueeze(1), (pad, pad + approx.shape[-1] % 2), mode="circular"
        )
        approx, detail = F.conv1d(padded, weight, stride=2).unbind(dim=1)
        details.append(detail)
    out = torch.cat([approx, *reversed(details)], dim=-1)
    return out.reshape(*leading, -1)


def sinusoidal_positional_encoding(n_positions: int, dim: int) -> torch.Tensor:
    r"""Fixed sine/cosine positional-encoding table of shape ``(n_positions, dim)``.

    The standard encoding of Vaswani et al. (2017): for position :math:`p` and
    channel :math:`i`, :math:`pe[p, 2i] = \sin(p / 10000^{2i/d})` and
    :math:`pe[p, 2i+1] = \cos(p / 10000^{2i/d})`. PyTorch ships no sinusoidal
    encoding (``nn.Embedding`` is a *learned* lookup), so braindecode models that
    need one share this primitive instead of re-deriving it. An odd ``dim`` is
    computed on the next even width and truncated, reproducing the per-model
    wrappers (e.g. :class:`~braindecode.models.medformer` odd-``d_model``).

    Parameters
    ----------
    n_positions : int
        Number of positions (sequence length) to encode.
    dim : int
        Embedding dimension of each position.

    Returns
    -------
    torch.Tensor
        ``(n_positions, dim)`` float table; callers add their own batch axis,
        dropout, or offset.
    """
    dim_even = dim + (dim % 2)
    position = torch.arange(n_positions).unsqueeze(1).float()
    div_term = torch.exp(
        torch.arange(0, dim_even, 2).float() * (-math.log(10000.0) / dim_even)
    )
    pe = torch.zeros(n_positions, dim_even)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    # ``.contiguous()`` so an odd-``dim`` truncation owns tight storage -- a
    # non-contiguous view over the padded width breaks safetensors buffer saving.
    return pe[:, :dim].contiguous()
