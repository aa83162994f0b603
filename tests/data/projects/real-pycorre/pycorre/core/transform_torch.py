"""
Batched shift application (torch).

Both rigid and piecewise-rigid correction reduce to resampling each frame at
`coordinate + shift(coordinate)`. We build a normalized sampling grid and use
`F.grid_sample` for the whole stack at once. This matches the sampling
convention of the legacy cv2 paths (`apply_shift_iteration` / `cv2.remap`),
which sample the source at `(row + s_row, col + s_col)` for a detected shift
`s`; agreement is within interpolation differences (cv2 cubic vs torch cubic).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def _resolve_mode(mode: str, device: torch.device) -> str:
    # grid_sample bicubic is unsupported on MPS; fall back to bilinear there.
    if mode == "bicubic" and device.type == "mps":
        return "bilinear"
    return mode


def _sample(frames, shift_row, shift_col, mode, padding_mode):
    """
    Resample each frame at (row + shift_row, col + shift_col).

    frames: (N, H, W); shift_row/shift_col: broadcastable to (N, H, W).
    """
    n, h, w = frames.shape
    dev, dt = frames.device, frames.dtype
    rows = torch.arange(h, device=dev, dtype=dt).view(1, h, 1)
    cols = torch.arange(w, device=dev, dtype=dt).view(1, 1, w)

    gy = ((rows + shift_row + 0.5) * 2.0 / h - 1.0).expand(n, h, w)
    gx = ((cols + shift_col + 0.5) * 2.0 / w - 1.0).expand(n, h, w)
    grid = torch.stack((gx, gy), dim=-1)

    out = F.grid_sample(
        frames.unsqueeze(1), grid,
        mode=_resolve_mode(mode, dev), padding_mode=padding_mode, align_corners=False,
    )
    return out.squeeze(1)


def _apply_border(out, applied_row, applied_col, border_nan, fill_min):
    """
    Replicate legacy border handling. `applied_*` are the per-frame applied
    shifts (= -detected), as used by `apply_shift_iteration`.
    """
    if border_nan is False:
        return out
    n, h, w = out.shape
    dev = out.device

    top = torch.ceil(applied_row.clamp(min=0)).to(torch.long)             # rows [0:top)
    bot = torch.ceil((-applied_row).clamp(min=0)).to(torch.long)          # rows [h-bot:h)
    left = torch.ceil(applied_col.clamp(min=0)).to(torch.long)           # cols [0:left)
    right = torch.ceil((-applied_col).clamp(min=0)).to(torch.long)       # cols [w-right:w)

    ridx = torch.arange(h, device=dev).view(1, h)
    cidx = torch.arange(w, device=dev).view(1, w)
    row_mask = (ridx < top.view(n, 1)) | (ridx >= (h - bot).view(n, 1))   # (N,H)
    col_mask = (cidx < left.view(n, 1)) | (cidx >= (w - right).view(n, 1))  # (N,W)
    mask = row_mask.unsqueeze(2) | col_mask.unsqueeze(1)                   # (N,H,W)

    if border_nan == "min":
        out = torch.where(mask, fill_min.view(n, 1, 1).to(out.dtype), out)
    else:  # True / "copy" both fall back to NaN fill (copy is rarely used)
        out = out.masked_fill(mask, float("nan"))
    return out


def apply_shifts_rigid(frames, shifts, mode="bicubic", border_nan=False,
                       padding_mode="reflection", clip=True):
    """
    Apply rigid shifts to a stack.

    Args:
        frames: (N, H, W) real tensor.
        shifts: (N, 2) detected (row, col) shifts.
        mode: grid_sample interpolation ('bicubic' | 'bilinear').
        border_nan: False | True | 'min' | 'copy'.
        clip: clip output to each frame's original [min, max] (legacy parity).

    Returns:
        (N, H, W) corrected stack.
    """
    n, h, w = frames.shape
    fmin = frames.amin(dim=(1, 2))
    fmax = frames.amax(dim=(1, 2))

    s_row = shifts[:, 0].view(n, 1, 1)
    s_col = shifts[:, 1].view(n, 1, 1)
    out = _sample(frames, s_row, s_col, mode, padding_mode)

    if clip:
        out = torch.clamp(out, fmin.view(n, 1, 1), fmax.view(n, 1, 1))
    out = _apply_border(out, -shifts[:, 0], -shifts[:, 1], border_nan, fmin)
    return out


def apply_shifts_pwrigid(frames, shift_row_grid, shift_col_grid, mode="bicubic",
                         upsample_mode="bilinear", padding_mode="border"):
    """
    Apply piecewise-rigid shifts to a stack.

    Args:
        frames: (N, H, W).
        shift_row_grid, shift_col_grid: (N, gy, gx) per-patch shift fields
            (row and col components), on the patch grid.
        mode: resampling interpolation for the warp.
        upsample_mode: interpolation used to expand the patch grid to (H, W)
            (legacy uses cv2.resize default = bilinear).

    Returns:
        (N, H, W) corrected stack.
    """
    n, h, w = frames.shape
    row_field = F.interpolate(shift_row_grid.unsqueeze(1), size=(h, w),
                              mode=upsample_mode, align_corners=False).squeeze(1)
    col_field = F.interpolate(shift_col_grid.unsqueeze(1), size=(h, w),
                              mode=upsample_mode, align_corners=False).squeeze(1)
    return _sample(frames, row_field, col_field, mode, padding_mode)
