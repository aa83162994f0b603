"""Torch mirror of :class:`patch_comparator.SegmentAwarePatchFillEngine`.

The outer onion peel ``while remaining > 0`` loop stays sequential/torch
driven -- the valid source set genuinely grows as the front recedes, a real
cross layer dependency. What gets batched is each layer's ``_best_source``
search: instead of a Python double loop over every border pixel x every
candidate source, every (target, source) pair's masked SSD is computed in
one shot via gather + reduce, then the whole layer's fills are applied at
once.

CPU updates ``filled_valid`` pixel by pixel *within* one border loop, so
later same layer pixels can already see earlier same layer fills as valid
sources; this batched version reads one frozen per layer validity snapshot
instead -- an intentional, minor Jacobi vs. Gauss-Seidel relaxation, covered
by the same MAE-threshold test tolerance as every other engine.
"""

from __future__ import annotations

import numpy as np
import torch

from ..imageutil import as_float_rgb


def _quantize_segments(img: torch.Tensor, n_zones: int = 6) -> torch.Tensor:
    w = torch.tensor([0.299, 0.587, 0.114], dtype=img.dtype, device=img.device)
    luma = (img * w).sum(dim=-1)
    return torch.clamp((luma * n_zones).long(), 0, n_zones - 1)


def _boundary_pixels(hole: torch.Tensor) -> torch.Tensor:
    front = torch.zeros_like(hole)
    front[1:, :] |= hole[1:, :] & ~hole[:-1, :]
    front[:-1, :] |= hole[:-1, :] & ~hole[1:, :]
    front[:, 1:] |= hole[:, 1:] & ~hole[:, :-1]
    front[:, :-1] |= hole[:, :-1] & ~hole[:, 1:]
    ys, xs = torch.nonzero(front, as_tuple=True)
    return torch.stack([ys, xs], dim=1)


def _gather_windows(field: torch.Tensor, centers: torch.Tensor, r: int) -> torch.Tensor:
    D = 2 * r + 1
    off = torch.arange(-r, r + 1, device=field.device)
    oy, ox = torch.meshgrid(off, off, indexing="ij")
    ys = centers[:, 0].view(-1, 1, 1) + oy.view(1, D, D)
    xs = centers[:, 1].view(-1, 1, 1) + ox.view(1, D, D)
    return field[ys, xs]


def _best_sources_batch(img_p: torch.Tensor, valid_p: torch.Tensor, seg_p: torch.Tensor,
                        target_centers_p: torch.Tensor, source_centers_p: torch.Tensor,
                        r: int, segment_penalty: float):
    """Masked SSD (+ segment penalty) for every (target, source) pair at once."""
    t_win = _gather_windows(img_p, target_centers_p, r)
    t_valid = _gather_windows(valid_p, target_centers_p, r)
    t_seg = seg_p[target_centers_p[:, 0], target_centers_p[:, 1]]

    s_win = _gather_windows(img_p, source_centers_p, r)
    s_valid = _gather_windows(valid_p, source_centers_p, r)
    s_seg = seg_p[source_centers_p[:, 0], source_centers_p[:, 1]]

    diff = t_win.unsqueeze(1) - s_win.unsqueeze(0)               # (T, S, D, D, C)
    sq = (diff * diff).sum(-1)                                    # (T, S, D, D)
    pair_valid = t_valid.unsqueeze(1) & s_valid.unsqueeze(0)      # (T, S, D, D)
    count = pair_valid.sum(dim=(2, 3))
    acc = (sq * pair_valid).sum(dim=(2, 3))
    dist = torch.where(count > 0, acc / count.clamp_min(1), torch.full_like(acc, float("inf")))

    same_seg = t_seg.view(-1, 1) == s_seg.view(1, -1)
    dist = dist + torch.where(same_seg, torch.zeros_like(dist), torch.full_like(dist, segment_penalty))

    best_dist, best_idx = dist.min(dim=1)
    best_source = source_centers_p[best_idx]
    return best_source, best_dist


class TorchSegmentAwarePatchFillEngine:
    def __init__(self, patch_radius: int = 3, search_stride: int = 2,
                max_sources: int = 500, segment_penalty: float = 0.25,
                seed: int = 7, device: "torch.device | None" = None):
        self.patch_radius = patch_radius
        self.search_stride = search_stride
        self.max_sources = max_sources
        self.segment_penalty = segment_penalty
        self.seed = seed
        self.device = device

    def fill(self, image: np.ndarray, hole: np.ndarray, progress=None, cancel=None) -> np.ndarray:
        r = self.patch_radius
        device = self.device
        img_np = as_float_rgb(image).astype(np.float32)
        hole_np = np.ascontiguousarray(hole > 0)
        H, W = hole_np.shape

        img = torch.as_tensor(img_np, device=device)
        hole_t = torch.as_tensor(hole_np, device=device)
        valid_t = ~hole_t
        segments = _quantize_segments(img)

        pad = r
        img_p = torch.zeros((H + 2 * pad, W + 2 * pad, img.shape[2]), dtype=img.dtype, device=device)
        img_p[pad:pad + H, pad:pad + W] = img
        valid_p = torch.zeros((H + 2 * pad, W + 2 * pad), dtype=torch.bool, device=device)
        valid_p[pad:pad + H, pad:pad + W] = valid_t
        seg_p = torch.zeros((H + 2 * pad, W + 2 * pad), dtype=segments.dtype, device=device)
        seg_p[pad:pad + H, pad:pad + W] = segments

        src_ys, src_xs = torch.nonzero(valid_t, as_tuple=True)
        src_pts = torch.stack([src_ys, src_xs], dim=1)
        src_pts = src_pts[::max(1, self.search_stride)]
        if src_pts.shape[0] > self.max_sources:
            gen = torch.Generator().manual_seed(self.seed)
            perm = torch.randperm(src_pts.shape[0], generator=gen).to(device)[: self.max_sources]
            src_pts = src_pts[perm]
        source_centers_p = src_pts + pad

        remaining = int(hole_t.sum().item())
        total = max(1, remaining)
        hole_cur = hole_t.clone()

        while remaining > 0:
            if cancel is not None and cancel():
                break
            border = _boundary_pixels(hole_cur)
            if border.shape[0] == 0:
                break
            keep = hole_cur[border[:, 0], border[:, 1]]
            border = border[keep]
            if border.shape[0] == 0:
                break
            target_centers_p = border + pad

            if source_centers_p.shape[0] == 0:
                best_dist = torch.full((border.shape[0],), float("inf"), device=device)
                best_source = torch.zeros_like(target_centers_p)
            else:
                best_source, best_dist = _best_sources_batch(
                    img_p, valid_p, seg_p, target_centers_p, source_centers_p,
                    r, self.segment_penalty)

            finite = torch.isfinite(best_dist)
            if finite.any():
                fi = finite.nonzero(as_tuple=True)[0]
                ty, tx = target_centers_p[fi, 0], target_centers_p[fi, 1]
                sy, sx = best_source[fi, 0], best_source[fi, 1]
                img_p[ty, tx] = img_p[sy, sx]
            for i in (~finite).nonzero(as_tuple=True)[0].tolist():
                ty, tx = int(target_centers_p[i, 0]), int(target_centers_p[i, 1])
                img_p[ty, tx] = self._local_mean(img_p, valid_p, ty, tx)

            valid_p[target_centers_p[:, 0], target_centers_p[:, 1]] = True
            hole_cur[border[:, 0], border[:, 1]] = False
            remaining -= border.shape[0]
            if progress is not None:
                progress((total - remaining) / total)

        if progress is not None:
            progress(1.0)
        out = img_p[pad:pad + H, pad:pad + W]
        return out.detach().cpu().numpy().astype(np.float64)

    @staticmethod
    def _local_mean(img_p: torch.Tensor, valid_p: torch.Tensor, ty: int, tx: int, r: int = 2) -> torch.Tensor:
        block = img_p[ty - r:ty + r + 1, tx - r:tx + r + 1]
        vmask = valid_p[ty - r:ty + r + 1, tx - r:tx + r + 1]
        if bool(vmask.any()):
            return block[vmask].mean(dim=0)
        return img_p[ty, tx]
