"""PatchMatch inpainting solver, one scale level.

Classic Barnes et al. PatchMatch (random init → propagation → random search)
wrapped in an EM loop: search the nearest neighbour field, then reconstruct the
hole by patch voting, repeat. All work is done in a *padded* coordinate frame so
every patch window is fully in bounds and distance is a fixed size slice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .patch_scorer import PatchScorer
from .patch_search_index import PatchSearchIndex


@dataclass
class PatchMatchSolver:
    radius: int = 3
    pm_iters: int = 4       # propagation + random search sweeps per EM step
    em_iters: int = 4       # search/reconstruct alternations
    seed: int = 1234

    def __post_init__(self):
        self.scorer = PatchScorer(self.radius)

    def solve_level(self, feat: np.ndarray, hole: np.ndarray,
                    invalid: np.ndarray, progress=None, cancel=None) -> np.ndarray:
        """Fill ``hole`` in the padded image ``feat``.

        ``invalid`` marks pixels that must not be sourced from (all holes).
        Returns a new padded image with hole pixels reconstructed.
        """
        r = self.radius
        rng = np.random.default_rng(self.seed)
        Hp, Wp = hole.shape
        index = PatchSearchIndex(invalid, r)
        if index.n_sources == 0:
            return feat.copy()

        targets = self._target_centers(hole, r)
        nnf_c, nnf_d = self._init_nnf(feat, targets, index, rng)

        current_estimate = feat.copy()
        for em in range(self.em_iters):
            if cancel is not None and cancel():
                break
            self._refresh(current_estimate, nnf_c, nnf_d, targets)
            for it in range(self.pm_iters):
                self._sweep(current_estimate, nnf_c, nnf_d, targets, index, rng,
                           reverse=(it % 2 == 1))
            current_estimate = self._vote(current_estimate, hole, nnf_c, nnf_d, targets)
            if progress is not None:
                progress((em + 1) / self.em_iters)
        return current_estimate

    def _target_centers(self, hole: np.ndarray, r: int) -> np.ndarray:
        """Centers whose patch overlaps the hole (hole dilated by r), full window in bounds."""
        Hp, Wp = hole.shape
        dil = hole.copy()
        for _ in range(r):
            nxt = dil.copy()
            nxt[1:, :] |= dil[:-1, :]
            nxt[:-1, :] |= dil[1:, :]
            nxt[:, 1:] |= dil[:, :-1]
            nxt[:, :-1] |= dil[:, 1:]
            dil = nxt
        dil[:r, :] = False
        dil[Hp - r:, :] = False
        dil[:, :r] = False
        dil[:, Wp - r:] = False
        ys, xs = np.nonzero(dil)
        return np.stack([ys, xs], axis=1).astype(np.int32)

    def _init_nnf(self, feat, targets, index, rng):
        Hp, Wp = feat.shape[:2]
        coords = np.zeros((Hp, Wp, 2), dtype=np.int32)
        coords[:, :, 0] = np.arange(Hp)[:, None]
        coords[:, :, 1] = np.arange(Wp)[None, :]
        dist = np.full((Hp, Wp), np.inf)
        # known pixels with a fully valid window are zero cost identity seeds
        dist[index.source_ok] = 0.0
        samples = index.sample(rng, len(targets))
        for i, (y, x) in enumerate(targets):
            sy, sx = int(samples[i, 0]), int(samples[i, 1])
            coords[y, x] = (sy, sx)
            dist[y, x] = self.scorer.distance(feat, y, x, sy, sx)
        return coords, dist

    def _refresh(self, feat, coords, dist, targets):
        for (y, x) in targets:
            sy, sx = int(coords[y, x, 0]), int(coords[y, x, 1])
            dist[y, x] = self.scorer.distance(feat, y, x, sy, sx)

    def _sweep(self, feat, coords, dist, targets, index, rng, reverse):
        order = targets[::-1] if reverse else targets
        delta = -1 if reverse else 1
        r = self.radius
        Hp, Wp = feat.shape[:2]
        for (y, x) in order:
            best_d = dist[y, x]
            best = (int(coords[y, x, 0]), int(coords[y, x, 1]))
            # propagation from two causal neighbours
            for (ny, nx) in ((y - delta, x), (y, x - delta)):
                if 0 <= ny < Hp and 0 <= nx < Wp and np.isfinite(dist[ny, nx]):
                    cand = (int(coords[ny, nx, 0]) + (y - ny),
                            int(coords[ny, nx, 1]) + (x - nx))
                    if index.is_source_ok(*cand):
                        d = self.scorer.distance(feat, y, x, cand[0], cand[1])
                        if d < best_d:
                            best_d, best = d, cand
            # random search, exponentially shrinking window
            w = max(Hp, Wp)
            while w >= 1:
                cy = best[0] + int(rng.integers(-w, w + 1))
                cx = best[1] + int(rng.integers(-w, w + 1))
                if index.is_source_ok(cy, cx):
                    d = self.scorer.distance(feat, y, x, cy, cx)
                    if d < best_d:
                        best_d, best = d, (cy, cx)
                w //= 2
            coords[y, x] = best
            dist[y, x] = best_d

    def _vote(self, feat, hole, coords, dist, targets):
        r = self.radius
        Hp, Wp, C = feat.shape
        acc = np.zeros((Hp, Wp, C), dtype=np.float64)
        wsum = np.zeros((Hp, Wp, 1), dtype=np.float64)
        # Weight scale from the *nonzero* target distances only. Known pixel
        # identity seeds sit at distance 0 and would otherwise pin the median to
        # 0, collapsing every real match's weight to ~0 and freezing the fill.
        target_dists = dist[targets[:, 0], targets[:, 1]]
        nonzero_target_dists = target_dists[np.isfinite(target_dists) & (target_dists > 1e-9)]
        weight_variance = (2.0 * (np.median(nonzero_target_dists) + 1e-6)
                          if nonzero_target_dists.size else 1.0)
        for (y, x) in targets:
            d = dist[y, x]
            if not np.isfinite(d):
                continue
            sy, sx = int(coords[y, x, 0]), int(coords[y, x, 1])
            w = np.exp(-d / (weight_variance + 1e-9))
            src = feat[sy - r:sy + r + 1, sx - r:sx + r + 1]
            acc[y - r:y + r + 1, x - r:x + r + 1] += w * src
            wsum[y - r:y + r + 1, x - r:x + r + 1] += w
        out = feat.copy()
        filled = (wsum[:, :, 0] > 0) & hole
        recon = acc / np.maximum(wsum, 1e-9)
        out[filled] = recon[filled]
        return out
