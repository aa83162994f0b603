"""Torch mirror of ``self_similar_shift.SelfSimilarShiftEngine._pick_offset`` only.

FAST corner extraction, BRIEF descriptors, and the DP seam carve stay on
numpy: corner counts are small (host<->device transfer would dominate any
gain) and the seam DP is a genuinely sequential row by row recurrence not
worth porting. ``_pick_offset``'s Python for loop over ~40-150 candidate
offsets (each already vectorised numpy over the border band pixels) is the
actual measured hot loop, and is what gets batched here into one shot over
every ``candidate x band_pixel`` pair at once.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np
import torch


def pick_offset_batched(img: np.ndarray, hole: np.ndarray,
                        bbox: Tuple[int, int, int, int],
                        candidates: List[Tuple[int, int]], margin: int,
                        device: "torch.device | None"
                        ) -> Tuple[Optional[Tuple[int, int]], float]:
    H, W = hole.shape
    if not candidates:
        return None, float("inf")

    img_t = torch.as_tensor(np.asarray(img, dtype=np.float32), device=device)
    hole_t = torch.as_tensor(np.ascontiguousarray(hole), device=device)
    offsets = torch.as_tensor(np.asarray(candidates, dtype=np.int64), device=device)  # (C, 2)
    C = offsets.shape[0]

    y0, x0, y1, x1 = bbox
    by0, bx0 = max(0, y0 - margin), max(0, x0 - margin)
    by1, bx1 = min(H, y1 + margin), min(W, x1 + margin)
    band = torch.zeros((H, W), dtype=torch.bool, device=device)
    band[by0:by1, bx0:bx1] = True
    band &= ~hole_t
    bys, bxs = torch.nonzero(band, as_tuple=True)  # (P,)
    P = bys.shape[0]
    if P == 0:
        return None, float("inf")

    oy = offsets[:, 0].view(C, 1)
    ox = offsets[:, 1].view(C, 1)
    sy = bys.view(1, P) - oy   # (C, P)
    sx = bxs.view(1, P) - ox
    ok = (sy >= 0) & (sy < H) & (sx >= 0) & (sx < W)
    ok_frac = ok.float().mean(dim=1)  # (C,)

    sy_c = sy.clamp(0, H - 1)
    sx_c = sx.clamp(0, W - 1)
    src_hole = hole_t[sy_c, sx_c]
    src_valid = ok & ~src_hole
    ok_count = ok.sum(dim=1).clamp_min(1)
    src_valid_frac = src_valid.sum(dim=1).float() / ok_count.float()

    target = img_t[bys, bxs]                    # (P, 3)
    source = img_t[sy_c, sx_c]                   # (C, P, 3)
    diff = target.view(1, P, -1) - source
    sq = (diff * diff).sum(dim=-1)                # (C, P)
    valid_f = src_valid.float()
    score = (sq * valid_f).sum(dim=1) / valid_f.sum(dim=1).clamp_min(1)

    gate = (ok_frac >= 0.9) & (src_valid_frac >= 0.9)
    gate &= _hole_source_valid_batch(hole_t, offsets, H, W)
    score = torch.where(gate, score, torch.full_like(score, float("inf")))

    best_idx = int(torch.argmin(score).item())
    best_score = float(score[best_idx].item())
    if not np.isfinite(best_score):
        return None, best_score
    best = (int(offsets[best_idx, 0].item()), int(offsets[best_idx, 1].item()))
    return best, best_score


def _hole_source_valid_batch(hole_t: torch.Tensor, offsets: torch.Tensor,
                             H: int, W: int, min_frac: float = 0.97) -> torch.Tensor:
    """Batched ``SelfSimilarShiftEngine._hole_source_valid`` over every candidate."""
    hys, hxs = torch.nonzero(hole_t, as_tuple=True)
    N = hys.shape[0]
    if N == 0:
        return torch.zeros(offsets.shape[0], dtype=torch.bool, device=offsets.device)
    oy = offsets[:, 0].view(-1, 1)
    ox = offsets[:, 1].view(-1, 1)
    sy = hys.view(1, N) - oy
    sx = hxs.view(1, N) - ox
    ok = (sy >= 0) & (sy < H) & (sx >= 0) & (sx < W)
    ok_frac = ok.float().mean(dim=1)
    sy_c, sx_c = sy.clamp(0, H - 1), sx.clamp(0, W - 1)
    # out of bounds source positions count as "is hole" (invalid), matching
    # the numpy version's `src_hole` default of True before the ok mask fill
    src_hole = torch.where(ok, hole_t[sy_c, sx_c], torch.ones_like(ok))
    valid_frac = (~src_hole).float().mean(dim=1)
    return (ok_frac >= min_frac) & (valid_frac >= min_frac)
