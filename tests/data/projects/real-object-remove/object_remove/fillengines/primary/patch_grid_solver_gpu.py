"""GPU (PyTorch) sparse patch-grid fill solver.

Every centre in one boundary-distance layer (see ``_hole_layers``) shares a
frozen snapshot of the working image/known mask, so their nearest-source
searches batch into one ``(T, S)`` masked SSD against the whole
(patch-radius-validity-filtered) source pool at once, rather than being
searched one at a time. The local-search shortcut used by the CPU solver is
dropped here in favour of always excluding over-used sources, tracked as a
dense per-source reuse-count tensor instead of a dict.

Rendering stays on :class:`renderer.PatchFieldRenderer` -- it's a cheap
``O(records x patch area)`` accumulate, not the bottleneck, so only the
search needs the GPU port.
"""

from __future__ import annotations

from typing import List

import numpy as np
import torch

from .patch_grid_solver import PatchCopyRecord, PrimaryFillEngineImpl, _hole_layers


def _quantize_segments(img: torch.Tensor, n_zones: int = 6) -> torch.Tensor:
    w = torch.tensor([0.299, 0.587, 0.114], dtype=img.dtype, device=img.device)
    luma = (img * w).sum(dim=-1)
    return torch.clamp((luma * n_zones).long(), 0, n_zones - 1)


def _source_ok_mask(valid: torch.Tensor, r: int) -> torch.Tensor:
    H, W = valid.shape
    ok = torch.zeros((H, W), dtype=torch.bool, device=valid.device)
    if H <= 2 * r or W <= 2 * r:
        return ok
    integral = torch.zeros((H + 1, W + 1), dtype=torch.int64, device=valid.device)
    integral[1:, 1:] = torch.cumsum(torch.cumsum((~valid).long(), 0), 1)
    d = 2 * r + 1
    box = integral[d:, d:] - integral[:-d, d:] - integral[d:, :-d] + integral[:-d, :-d]
    ok[r:H - r, r:W - r] = box == 0
    return ok


def _gather_windows(field: torch.Tensor, centers: torch.Tensor, r: int) -> torch.Tensor:
    H, W = field.shape[:2]
    D = 2 * r + 1
    off = torch.arange(-r, r + 1, device=field.device)
    oy, ox = torch.meshgrid(off, off, indexing="ij")
    ys = (centers[:, 0].view(-1, 1, 1) + oy.view(1, D, D)).clamp(0, H - 1)
    xs = (centers[:, 1].view(-1, 1, 1) + ox.view(1, D, D)).clamp(0, W - 1)
    return field[ys, xs]


def _local_src_mask(source_coords: torch.Tensor, base_mask: torch.Tensor,
                    layer_centers: torch.Tensor, margin0: int, cap: int) -> torch.Tensor:
    """Restrict `base_mask` (already reuse-filtered) to a spatial window
    around this layer's own centres, doubling the window until it actually
    contains a candidate (or giving up at `cap` and returning `base_mask`
    unrestricted). Nearby sources are always at least as good a match as far
    ones for real photos, so this changes only which near-tied candidate wins
    - not whether a good one is found.

    Without this, every layer's (T, S) search scans every valid pixel in the
    whole image (`_best_sources_batch` below), which is fine for a small hole
    but is the dominant cost for a thick one: a hole this solver treats as
    ``H`` boundary-distance layers deep (see `_hole_layers`) does that full
    scan ``H`` times, and a hole a few hundred pixels thick (e.g. a wide,
    mostly-flat padding bar) turns into a multi-minute solve on a search that
    only ever needed its own neighbourhood."""
    cy0 = int(layer_centers[:, 0].min())
    cy1 = int(layer_centers[:, 0].max())
    cx0 = int(layer_centers[:, 1].min())
    cx1 = int(layer_centers[:, 1].max())
    margin = margin0
    while margin < cap:
        spatial = ((source_coords[:, 0] >= cy0 - margin) & (source_coords[:, 0] <= cy1 + margin) &
                  (source_coords[:, 1] >= cx0 - margin) & (source_coords[:, 1] <= cx1 + margin))
        combined = base_mask & spatial
        if combined.any():
            return combined
        margin *= 2
    return base_mask


def _best_sources_batch(working: torch.Tensor, known: torch.Tensor,
                        target_centers: torch.Tensor, source_coords: torch.Tensor,
                        src_mask: torch.Tensor, r: int):
    t_win = _gather_windows(working, target_centers, r)      # (T, D, D, C)
    t_valid = _gather_windows(known, target_centers, r)       # (T, D, D)
    s_win = _gather_windows(working, source_coords, r)        # (S, D, D, C)

    # Masked SSD via the sum-of-squares expansion (||t-s||^2 = ||t||^2 - 2 t.s
    # + ||s||^2), computed as (T, S) matmuls instead of materialising a dense
    # (T, S, D, D, C) difference tensor -- that tensor is T*S*D*D*C elements
    # (gigabytes even for a modest hole/image), which overflows a single
    # Metal buffer on the MPS backend and corrupts unrelated device memory
    # instead of raising a clean out-of-memory error.
    T, D, _, C = t_win.shape
    S = s_win.shape[0]
    Dtot = D * D
    t_flat = t_win.reshape(T, Dtot, C)
    s_flat = s_win.reshape(S, Dtot, C)
    tv_flat = t_valid.reshape(T, Dtot).to(t_win.dtype)

    tsq = (t_flat * t_flat).sum(-1)                # (T, Dtot)
    ssq = (s_flat * s_flat).sum(-1)                 # (S, Dtot)
    term1 = (tv_flat * tsq).sum(-1)                 # (T,)
    term3 = tv_flat @ ssq.t()                       # (T, S)
    weighted_t = tv_flat.unsqueeze(-1) * t_flat      # (T, Dtot, C)
    term2 = torch.einsum("tdc,sdc->ts", weighted_t, s_flat)  # (T, S)

    acc = term1.unsqueeze(1) - 2 * term2 + term3
    count = tv_flat.sum(-1).clamp_min(1)
    dist = acc / count.unsqueeze(1)
    dist = torch.where(src_mask.view(1, -1), dist, torch.full_like(dist, float("inf")))
    best_dist, best_idx = dist.min(dim=1)
    return best_idx, best_dist


class TorchPrimaryFillEngineImpl:
    def __init__(self, patch_radius: int = 4, grid_stride=None, max_reuse: int = 3,
                small_image_area: int = 48 * 48, seed: int = 11, device=None):
        self.patch_radius = patch_radius
        self.grid_stride = grid_stride
        self.max_reuse = max_reuse
        self.small_image_area = small_image_area
        self.seed = seed
        self.device = device

    def solve(self, image: np.ndarray, hole: np.ndarray, invalid: np.ndarray,
             progress=None, cancel=None) -> List[PatchCopyRecord]:
        r = self.patch_radius
        H, W = hole.shape
        if H <= 2 * r or W <= 2 * r or not hole.any():
            return []
        device = self.device
        valid_np = ~invalid

        img = torch.as_tensor(np.asarray(image, dtype=np.float32), device=device)
        valid_t = torch.as_tensor(valid_np, device=device)
        segments = _quantize_segments(img)

        source_ok = _source_ok_mask(valid_t, r)
        sys_, sxs = torch.nonzero(source_ok, as_tuple=True)
        if sys_.shape[0] == 0:
            return []
        source_coords = torch.stack([sys_, sxs], dim=1)

        area = int(hole.sum())
        stride = 1 if area <= self.small_image_area else (self.grid_stride or max(1, r))
        centers_np = PrimaryFillEngineImpl._grid_centers(hole, r, stride)
        if len(centers_np) == 0:
            return []

        layers_np = _hole_layers(hole)
        center_layers = layers_np[centers_np[:, 0], centers_np[:, 1]]
        order = np.argsort(center_layers, kind="stable")
        centers_np = centers_np[order]
        center_layers = center_layers[order]
        centers = torch.as_tensor(centers_np, device=device)

        working = img.clone()
        known = valid_t.clone()
        reuse_count = torch.zeros(source_coords.shape[0], dtype=torch.int64, device=device)

        records: List[PatchCopyRecord] = []
        total = max(1, len(centers_np))
        processed = 0
        local_margin0 = max(4 * r, 16)
        local_cap = max(H, W)

        for layer_id in np.unique(center_layers):
            if cancel is not None and cancel():
                break
            idx = np.nonzero(center_layers == layer_id)[0]
            layer_centers = centers[idx]

            src_mask = reuse_count < self.max_reuse
            src_mask = _local_src_mask(source_coords, src_mask, layer_centers,
                                       local_margin0, local_cap)
            best_idx, best_dist = _best_sources_batch(
                working, known, layer_centers, source_coords, src_mask, r)

            finite = torch.isfinite(best_dist)
            if finite.any():
                fi = finite.nonzero(as_tuple=True)[0]
                ty, tx = layer_centers[fi, 0], layer_centers[fi, 1]
                sidx = best_idx[fi]
                sy, sx = source_coords[sidx, 0], source_coords[sidx, 1]
                same_seg = segments[ty, tx] == segments[sy, sx]
                weight = torch.where(same_seg, torch.ones_like(ty, dtype=working.dtype),
                                     torch.full_like(ty, 0.75, dtype=working.dtype))

                ty_l, tx_l = ty.tolist(), tx.tolist()
                sy_l, sx_l = sy.tolist(), sx.tolist()
                w_l = weight.tolist()
                for k in range(len(ty_l)):
                    records.append(PatchCopyRecord(ty_l[k], tx_l[k], sy_l[k], sx_l[k], w_l[k]))

                D = 2 * r + 1
                off = torch.arange(-r, r + 1, device=device)
                oy, ox = torch.meshgrid(off, off, indexing="ij")
                ty_w = (ty.view(-1, 1, 1) + oy.view(1, D, D)).clamp(0, H - 1)
                tx_w = (tx.view(-1, 1, 1) + ox.view(1, D, D)).clamp(0, W - 1)
                sy_w = (sy.view(-1, 1, 1) + oy.view(1, D, D)).clamp(0, H - 1)
                sx_w = (sx.view(-1, 1, 1) + ox.view(1, D, D)).clamp(0, W - 1)
                working[ty_w, tx_w] = working[sy_w, sx_w]
                known[ty_w, tx_w] = True
                reuse_count.index_add_(0, sidx, torch.ones_like(sidx))

            processed += len(idx)
            if progress is not None:
                progress(processed / total)
        if progress is not None:
            progress(1.0)
        return records
