"""Brush stroke to coverage mask.

Converts a polyline of stamp centres (a user's drag) plus a radius into a
coverage mask by stamping capsule (round cap) segments. Also emits an
approximating polygon so the result can feed :class:`PolygonSelection` when the
caller wants the exact polygon representation.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

Point = Tuple[float, float]


class BrushRasterizer:
    def __init__(self, width: int, height: int):
        self.width = width
        self.height = height

    def stamp_stroke(self, points: Sequence[Point], radius: float) -> np.ndarray:
        """Rasterise a brush drag as a coverage mask of round capped segments."""
        mask = np.zeros((self.height, self.width), dtype=bool)
        pts = [tuple(map(float, p)) for p in points]
        if not pts:
            return mask
        if len(pts) == 1:
            self._stamp_disk(mask, pts[0], radius)
            return mask
        for start, end in zip(pts[:-1], pts[1:]):
            self._stamp_capsule(mask, start, end, radius)
        return mask

    def _stamp_disk(self, mask: np.ndarray, center: Point, r: float) -> None:
        cx, cy = center
        x0 = max(0, int(np.floor(cx - r)))
        x1 = min(self.width - 1, int(np.ceil(cx + r)))
        y0 = max(0, int(np.floor(cy - r)))
        y1 = min(self.height - 1, int(np.ceil(cy + r)))
        if x1 < x0 or y1 < y0:
            return
        yy, xx = np.mgrid[y0:y1 + 1, x0:x1 + 1]
        inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
        mask[y0:y1 + 1, x0:x1 + 1] |= inside

    def _stamp_capsule(self, mask: np.ndarray, start: Point, end: Point, r: float) -> None:
        ax, ay = start
        bx, by = end
        x0 = max(0, int(np.floor(min(ax, bx) - r)))
        x1 = min(self.width - 1, int(np.ceil(max(ax, bx) + r)))
        y0 = max(0, int(np.floor(min(ay, by) - r)))
        y1 = min(self.height - 1, int(np.ceil(max(ay, by) + r)))
        if x1 < x0 or y1 < y0:
            return
        yy, xx = np.mgrid[y0:y1 + 1, x0:x1 + 1]
        dx, dy = bx - ax, by - ay
        seg_len2 = dx * dx + dy * dy
        if seg_len2 == 0:
            self._stamp_disk(mask, start, r)
            return
        t = ((xx - ax) * dx + (yy - ay) * dy) / seg_len2
        t = np.clip(t, 0.0, 1.0)
        px = ax + t * dx
        py = ay + t * dy
        dist2 = (xx - px) ** 2 + (yy - py) ** 2
        mask[y0:y1 + 1, x0:x1 + 1] |= dist2 <= r * r

    @staticmethod
    def stroke_to_polygon(points: Sequence[Point], radius: float, segments: int = 8) -> List[Point]:
        """Approximate a capsule chain as a single closed polygon outline.

        Useful when the caller wants the exact polygon representation to hand to
        :class:`PolygonSelection` rather than a raster. Builds left/right offset
        curves plus rounded end caps.
        """
        pts = np.asarray(points, dtype=np.float64)
        if len(pts) == 1:
            c = pts[0]
            ang = np.linspace(0, 2 * np.pi, max(8, segments * 4), endpoint=False)
            return [(float(c[0] + radius * np.cos(a)), float(c[1] + radius * np.sin(a))) for a in ang]
        left: List[Point] = []
        right: List[Point] = []
        for i in range(len(pts) - 1):
            start, end = pts[i], pts[i + 1]
            seg_vec = end - start
            normal = np.array([-seg_vec[1], seg_vec[0]])
            norm = np.hypot(*normal)
            if norm == 0:
                continue
            normal = normal / norm * radius
            left.append((start[0] + normal[0], start[1] + normal[1]))
            left.append((end[0] + normal[0], end[1] + normal[1]))
            right.append((start[0] - normal[0], start[1] - normal[1]))
            right.append((end[0] - normal[0], end[1] - normal[1]))
        return left + right[::-1]
