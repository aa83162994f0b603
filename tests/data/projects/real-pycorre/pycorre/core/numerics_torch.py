"""
Torch implementation of subpixel translation registration.

A batched, device-agnostic (CPU / CUDA) reimplementation of the
phase-correlation + matrix-multiply upsampled-DFT method. Where a per-frame
implementation runs one FFT at a time, this operates on a whole `(N, H, W)`
stack in a single set of FFTs and batched DFTs.

Attribution: the algorithm (and the upsampled-DFT refinement in particular) is
from scikit-image / SIMA, BSD-3-Clause, after Guizar-Sicairos, Thurman & Fienup,
"Efficient subpixel image registration algorithms," Opt. Lett. 33, 156 (2008).
This is an independent torch reimplementation of that BSD-licensed routine.

Numerical notes:
  * Global FFT scaling does not affect the argmax, so we use torch's default
    (unnormalized) FFT rather than reproducing OpenCV's DFT_SCALE.
  * Computation is done in the dtype of the input (float32 -> complex64 by
    default), which matches legacy shifts to well under 1e-2 px.
"""
from __future__ import annotations

import torch


def _ifftshift_ramp(n: int, device, dtype) -> torch.Tensor:
    """ifftshift(arange(n)) - floor(n // 2), as used by the upsampled DFT."""
    r = torch.fft.ifftshift(torch.arange(n, device=device, dtype=dtype))
    return r - (n // 2)


def _upsampled_dft_batch(data, region_size, upsample_factor, offsets):
    """
    Batched matrix-multiply upsampled DFT.

    Args:
        data: (N, H, W) complex tensor.
        region_size: int, size of the upsampled output region per axis.
        upsample_factor: float.
        offsets: (N, 2) real tensor of per-frame (row, col) sample offsets.

    Returns:
        (N, region_size, region_size) complex tensor.
    """
    n, h, w = data.shape
    dev, rdtype = data.device, offsets.dtype
    cdtype = data.dtype
    rs = int(region_size)
    uf = float(upsample_factor)

    out_r = torch.arange(rs, device=dev, dtype=rdtype)              # (rs,)
    fr_h = _ifftshift_ramp(h, dev, rdtype)                          # (H,)
    fr_w = _ifftshift_ramp(w, dev, rdtype)                          # (W,)
    off_r = offsets[:, 0].view(n, 1, 1)                            # (N,1,1)
    off_c = offsets[:, 1].view(n, 1, 1)

    # row_kernel: (N, rs, H);  col_kernel: (N, W, rs)
    row_arg = (out_r.view(1, rs, 1) - off_r) * fr_h.view(1, 1, h)
    row_kernel = torch.exp((-2j * torch.pi / (h * uf)) * row_arg.to(cdtype))
    col_arg = fr_w.view(1, w, 1) * (out_r.view(1, 1, rs) - off_c)
    col_kernel = torch.exp((-2j * torch.pi / (w * uf)) * col_arg.to(cdtype))

    out = torch.einsum("nrh,nhw->nrw", row_kernel, data)
    out = torch.einsum("nrw,nwc->nrc", out, col_kernel)
    return out


def register_translation_batch(
    frames,
    template,
    upsample_factor: int = 1,
    max_shifts=(10, 10),
    shifts_lb=None,
    shifts_ub=None,
):
    """
    Find the rigid shift registering each frame to `template`.

    Args:
        frames: (N, H, W) real tensor.
        template: (H, W) real tensor (same device/dtype as `frames`).
        upsample_factor: subpixel resolution (1 / upsample_factor px).
        max_shifts: (row, col) max absolute whole-pixel shift to consider.
        shifts_lb, shifts_ub: optional (row, col) bounds restricting the search
            window. Used by pw-rigid; may be a single (2,) bound or per-frame
            (N, 2) bounds. When given they override `max_shifts`.

    Returns:
        shifts: (N, 2) real tensor of (row, col) shifts, matching the sign
            convention of `pycorre.core.numerics.register_translation`.
    """
    if frames.ndim != 3:
        raise ValueError("`frames` must be (N, H, W).")
    n, h, w = frames.shape
    dev = frames.device

    src_freq = torch.fft.fft2(frames)                 # (N, H, W) complex
    tgt_freq = torch.fft.fft2(template)               # (H, W) complex
    image_product = src_freq * tgt_freq.conj()        # broadcast over N
    cross_correlation = torch.fft.ifft2(image_product)
    cc_abs = cross_correlation.abs()

    # Restrict the search window by zeroing disallowed shift positions.
    if shifts_lb is not None or shifts_ub is not None:
        # Map each correlation index to its signed shift, then keep only the
        # window [lb, ub]. Supports per-frame bounds (broadcast (2,) -> (N,2)).
        lb = torch.as_tensor(shifts_lb, device=dev, dtype=cc_abs.dtype).expand(n, 2)
        ub = torch.as_tensor(shifts_ub, device=dev, dtype=cc_abs.dtype).expand(n, 2)
        midr, midc = h // 2, w // 2
        rsh = torch.arange(h, device=dev, dtype=cc_abs.dtype)
        csh = torch.arange(w, device=dev, dtype=cc_abs.dtype)
        rsh = torch.where(rsh > midr, rsh - h, rsh)   # (H,) signed row shift
        csh = torch.where(csh > midc, csh - w, csh)   # (W,) signed col shift
        # Legacy keeps the window [lb, ub) -- lower inclusive, upper exclusive
        # (it zeroes `new_cc[ub:]`), so match that exactly.
        valid_r = (rsh.view(1, h) >= lb[:, 0:1]) & (rsh.view(1, h) < ub[:, 0:1])
        valid_c = (csh.view(1, w) >= lb[:, 1:2]) & (csh.view(1, w) < ub[:, 1:2])
        keep = valid_r.unsqueeze(2) & valid_c.unsqueeze(1)   # (N,H,W)
        cc_search = cc_abs * keep
    else:
        ms0, ms1 = int(max_shifts[0]), int(max_shifts[1])
        mask = torch.zeros((h, w), dtype=torch.bool, device=dev)
        mask[ms0:h - ms0, :] = True
        mask[:, ms1:w - ms1] = True
        cc_search = cc_abs.masked_fill(mask, 0.0)

    flat = cc_search.view(n, -1).argmax(dim=1)
    maxima = torch.stack((flat // w, flat % w), dim=1).to(torch.float64 if
             frames.dtype == torch.float64 else torch.float32)

    shape = torch.tensor([h, w], device=frames.device, dtype=maxima.dtype)
    midpoints = torch.floor(shape / 2)
    shifts = torch.where(maxima > midpoints, maxima - shape, maxima)

    if upsample_factor == 1:
        return shifts

    # Refine around the integer estimate with a local upsampled DFT.
    shifts = torch.round(shifts * upsample_factor) / upsample_factor
    region = float(torch.ceil(torch.tensor(upsample_factor * 1.5)).item())
    dftshift = float(torch.fix(torch.tensor(region / 2.0)).item())
    sample_region_offset = dftshift - shifts * upsample_factor

    cc = _upsampled_dft_batch(
        image_product.conj(), region, upsample_factor, sample_region_offset
    ).conj()
    cc_abs = cc.abs()
    rs = cc_abs.shape[-1]
    flat = cc_abs.view(n, -1).argmax(dim=1)
    maxima = torch.stack((flat // rs, flat % rs), dim=1).to(shifts.dtype)
    maxima -= dftshift
    shifts = shifts + maxima / upsample_factor
    return shifts
