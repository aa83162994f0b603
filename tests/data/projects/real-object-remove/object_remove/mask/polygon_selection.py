"""Polygon/scanline selection model.

The selection is built from signed polygons, and its boundary geometry can be
queried as unordered boundary points or ordered boundary cycles. The raster
mask is a cached derivative, not the primary store.

This class keeps a list of *signed* polygons (positive = add, negative =
subtract). Scanlines and the raster mask are generated on demand via an
even odd with sign coverage test evaluated per pixel row (scanline fill).
Boolean ops (union of brush strokes, subtract of corrections) are therefore
exact and resolution independent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, List, Sequence, Tuple

import numpy as np

Point = Tuple[float, float]


@dataclass
class _Poly:
    points: np.ndarray  # (N, 2) float, (x, y)
    add: bool           # True => add region, False => subtract region


@dataclass
class PolygonSelection:
    """A selection as a set of signed polygons over a fixed canvas size."""

    width: int
    height: int
    polys: List[_Poly] = field(default_factory=list)

    def add_poly(self, points: Sequence[Point]) -> "PolygonSelection":
        """Add a filled polygon to the selection."""
        self.polys.append(_Poly(np.asarray(points, dtype=np.float64), add=True))
        return self

    def remove_poly(self, points: Sequence[Point]) -> "PolygonSelection":
        """Subtract a polygon from the selection."""
        self.polys.append(_Poly(np.asarray(points, dtype=np.float64), add=False))
        return self

    @classmethod
    def from_mask(cls, mask: np.ndarray) -> "PolygonSelection":
        """Build a selection from a raster mask by tracing its boundary.

        We keep the raster as the source of truth here (caller already has a
        raster, e.g. from a brush rasteriser) but wrap it so the polygon API is
        uniform. Boundary tracing is used for :meth:`boundary_loops`.
        """
        h, w = mask.shape
        sel = cls(width=w, height=h)
        sel._raster_override = (mask > 0)
        return sel

    _raster_override: np.ndarray | None = field(default=None, repr=False)

    def to_scanlines(self) -> List[Tuple[int, int, int]]:
        """Return spans as ``(y, x_start, x_end_exclusive)`` covering the selection."""
        mask = self.to_mask()
        spans: List[Tuple[int, int, int]] = []
        for y in range(self.height):
            row = mask[y]
            if not row.any():
                continue
            idx = np.flatnonzero(np.diff(np.concatenate(([0], row.view(np.int8), [0]))))
            for a, b in zip(idx[0::2], idx[1::2]):
                spans.append((y, int(a), int(b)))
        return spans

    def to_mask(self) -> np.ndarray:
        """Rasterise the signed polygon set to a boolean mask (cached derivative)."""
        if self._raster_override is not None:
            return self._raster_override
        mask = np.zeros((self.height, self.width), dtype=bool)
        for poly in self.polys:
            filled = _rasterize_polygon(poly.points, self.width, self.height)
            if poly.add:
                mask |= filled
            else:
                mask &= ~filled
        return mask

    def union(self, other: "PolygonSelection") -> "PolygonSelection":
        self.polys.extend(other.polys)
        return self

    def subtract(self, other: "PolygonSelection") -> "PolygonSelection":
        for p in other.polys:
            self.polys.append(_Poly(p.points, add=not p.add))
        return self

    def boundary_point_count(self) -> int:
        return sum(len(c) for c in self.boundary_loops())

    def boundary_points(self) -> np.ndarray:
        """All boundary pixels as an (N, 2) array of (x, y), in no particular order."""
        mask = self.to_mask()
        eroded = _erode(mask)
        ys, xs = np.nonzero(mask & ~eroded)
        return np.stack([xs, ys], axis=1)

    def boundary_loops(self) -> List[np.ndarray]:
        """Ordered boundary loops, one per connected component."""
        from .connected_components import label_components

        labels, n = label_components(self.to_mask())
        cycles: List[np.ndarray] = []
        for lab in range(1, n + 1):
            comp = labels == lab
            cycle = _trace_boundary(comp)
            if len(cycle):
                cycles.append(cycle)
        return cycles

    def is_empty(self) -> bool:
        return not self.to_mask().any()

    def copy(self) -> "PolygonSelection":
        new = PolygonSelection(self.width, self.height,
                               [_Poly(p.points.copy(), p.add) for p in self.polys])
        if self._raster_override is not None:
            new._raster_override = self._raster_override.copy()
        return new


def _rasterize_polygon(points: np.ndarray, width: int, height: int) -> np.ndarray:
    """Even odd scanline polygon fill. ``points`` is (N, 2) as (x, y)."""
    mask = np.zeros((height, width), dtype=bool)
    n = len(points)
    if n < 3:
        return mask
    xs = points[:, 0]
    ys = points[:, 1]
    y_min = max(0, int(np.floor(ys.min())))
    y_max = min(height - 1, int(np.ceil(ys.max())))
    for y in range(y_min, y_max + 1):
        yc = y + 0.5
        nodes: List[float] = []
        j = n - 1
        for i in range(n):
            yi, yj = ys[i], ys[j]
            if (yi < yc <= yj) or (yj < yc <= yi):
                t = (yc - yi) / (yj - yi)
                nodes.append(xs[i] + t * (xs[j] - xs[i]))
            j = i
        nodes.sort()
        for a, b in zip(nodes[0::2], nodes[1::2]):
            xa = max(0, int(np.ceil(a - 0.5)))
            xb = min(width - 1, int(np.floor(b - 0.5)))
            if xb >= xa:
                mask[y, xa:xb + 1] = True
    return mask


def _erode(mask: np.ndarray) -> np.ndarray:
    """4 connected erosion (a pixel survives only if all N/S/E/W neighbours are set)."""
    m = mask
    out = m.copy()
    out[1:, :] &= m[:-1, :]
    out[:-1, :] &= m[1:, :]
    out[:, 1:] &= m[:, :-1]
    out[:, :-1] &= m[:, 1:]
    # border pixels of a set region are boundary by definition
    out[0, :] = False
    out[-1, :] = False
    out[:, 0] = False
    out[:, -1] = False
    return out & m


def _trace_boundary(comp: np.ndarray) -> np.ndarray:
    """Moore neighbour boundary trace of a single connected component.

    Returns an ordered (M, 2) array of (x, y) boundary pixels. Robust but simple:
    if tracing fails to close, falls back to unordered boundary pixels.
    """
    ys, xs = np.nonzero(comp)
    if len(xs) == 0:
        return np.empty((0, 2), dtype=int)
    # start pixel: topmost leftmost
    start_idx = np.lexsort((xs, ys))[0]
    start = (int(xs[start_idx]), int(ys[start_idx]))
    h, w = comp.shape

    def is_set(px, py):
        return 0 <= px < w and 0 <= py < h and comp[py, px]

    # 8 neighbour offsets clockwise starting from "west"
    neigh = [(-1, 0), (-1, -1), (0, -1), (1, -1),
             (1, 0), (1, 1), (0, 1), (-1, 1)]
    boundary = [start]
    current_pixel = start
    backdir = 0
    max_steps = comp.sum() * 8 + 16
    for _ in range(int(max_steps)):
        found = False
        for k in range(8):
            d = (backdir + k) % 8
            nx, ny = current_pixel[0] + neigh[d][0], current_pixel[1] + neigh[d][1]
            if is_set(nx, ny):
                backdir = (d + 5) % 8  # step back and one over
                current_pixel = (nx, ny)
                if current_pixel == start and len(boundary) > 2:
                    return np.asarray(boundary, dtype=int)
                boundary.append(current_pixel)
                found = True
                break
        if not found:
            break
    # fallback: unordered boundary
    eroded = _erode(comp)
    bys, bxs = np.nonzero(comp & ~eroded)
    return np.stack([bxs, bys], axis=1)
