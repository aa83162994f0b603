"""Quad-tree spatial index over candidate source-patch centres.

Supports three query shapes: plain nearest match, nearest match within a
spatial radius of an existing point (for local, propagation-style search),
and nearest match while excluding sources that have already been used too
many times (for diversity, so a fill doesn't visibly tile one source patch).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from .scoring import patch_sqr_distance_batch


@dataclass
class _QuadTreeNode:
    y0: int
    x0: int
    y1: int
    x1: int
    points: List[int] = field(default_factory=list)
    children: Optional[List["_QuadTreeNode"]] = None

    @property
    def is_leaf(self) -> bool:
        return self.children is None

    def quadrant_index(self, y: int, x: int) -> int:
        my, mx = (self.y0 + self.y1) // 2, (self.x0 + self.x1) // 2
        return (0 if y < my else 2) + (0 if x < mx else 1)

    def split(self) -> List[int]:
        """Split this leaf into 4 children, handing back its old points for
        the caller to redistribute."""
        my, mx = (self.y0 + self.y1) // 2, (self.x0 + self.x1) // 2
        self.children = [
            _QuadTreeNode(self.y0, self.x0, my, mx),
            _QuadTreeNode(self.y0, mx, my, self.x1),
            _QuadTreeNode(my, self.x0, self.y1, mx),
            _QuadTreeNode(my, mx, self.y1, self.x1),
        ]
        pts, self.points = self.points, []
        return pts

    def intersects(self, y0: int, x0: int, y1: int, x1: int) -> bool:
        return not (self.y1 <= y0 or self.y0 >= y1 or self.x1 <= x0 or self.x0 >= x1)


class QuadTreeIndex:
    def __init__(self, bounds: Tuple[int, int, int, int], coords: np.ndarray,
                leaf_size: int = 24, min_extent: int = 8):
        """``bounds`` = (y0, x0, y1, x1); ``coords`` = (N, 2) int candidate
        source-patch centres, all inserted immediately."""
        self.coords = np.asarray(coords, dtype=np.int64)
        self.leaf_size = leaf_size
        self.min_extent = min_extent
        y0, x0, y1, x1 = bounds
        self.root = _QuadTreeNode(y0, x0, y1, x1)
        for idx in range(len(self.coords)):
            self.add_node(idx)

    def add_node(self, idx: int) -> None:
        self._insert(self.root, idx)

    def _insert(self, node: _QuadTreeNode, idx: int) -> None:
        if not node.is_leaf:
            y, x = self.coords[idx]
            self._insert(node.children[node.quadrant_index(int(y), int(x))], idx)
            return
        node.points.append(idx)
        can_split = (node.y1 - node.y0) > self.min_extent and (node.x1 - node.x0) > self.min_extent
        if len(node.points) > self.leaf_size and can_split:
            for pidx in node.split():
                self._insert(node, pidx)

    def _iter_points(self, node: _QuadTreeNode):
        if node.is_leaf:
            yield from node.points
        else:
            for c in node.children:
                yield from self._iter_points(c)

    def all_points(self) -> np.ndarray:
        # every index gets inserted into exactly one leaf at construction
        # time (see __init__/_insert), so the full point set is always just
        # self.coords -- no need to walk the tree to reconstruct it.
        return self.coords

    def query_range(self, y0: int, x0: int, y1: int, x1: int) -> np.ndarray:
        """Points whose centre lies in ``[y0,y1) x [x0,x1)``, pruning whole
        subtrees whose bbox doesn't intersect the query."""
        out: List[int] = []

        def visit(node: _QuadTreeNode) -> None:
            if not node.intersects(y0, x0, y1, x1):
                return
            if node.is_leaf:
                out.extend(node.points)
                return
            for c in node.children:
                visit(c)

        visit(self.root)
        return self.coords[out] if out else np.empty((0, 2), dtype=np.int64)

    def nearest(self, image: np.ndarray, ty: int, tx: int, radius: int,
               target_valid: Optional[np.ndarray] = None) -> Optional[Tuple[int, int]]:
        return _best_match(image, ty, tx, self.all_points(), radius, target_valid)

    def nearest_near(self, image: np.ndarray, ty: int, tx: int, radius: int,
                     near_y: int, near_x: int, near_radius: int,
                     target_valid: Optional[np.ndarray] = None) -> Optional[Tuple[int, int]]:
        coords = self.query_range(near_y - near_radius, near_x - near_radius,
                                  near_y + near_radius, near_x + near_radius)
        return _best_match(image, ty, tx, coords, radius, target_valid)

    def nearest_excluding_overused(self, image: np.ndarray, ty: int, tx: int, radius: int,
                                   used: Dict[Tuple[int, int], int], max_reuse: int,
                                   target_valid: Optional[np.ndarray] = None
                                   ) -> Optional[Tuple[int, int]]:
        coords = self.all_points()
        if used and len(coords):
            # linearise (y, x) -> y*W+x so the per-point dict.get in a Python
            # loop becomes one vectorised membership test against just the
            # (typically far smaller) set of sources that are actually
            # over-used, rather than looping over every candidate in Python.
            W = self.root.x1
            overused = [k[0] * W + k[1] for k, v in used.items() if v >= max_reuse]
            if overused:
                coord_idx = coords[:, 0] * W + coords[:, 1]
                coords = coords[~np.isin(coord_idx, overused)]
        return _best_match(image, ty, tx, coords, radius, target_valid)


def _best_match(image: np.ndarray, ty: int, tx: int, coords: np.ndarray, radius: int,
                target_valid: Optional[np.ndarray] = None) -> Optional[Tuple[int, int]]:
    if len(coords) == 0:
        return None
    d = patch_sqr_distance_batch(image, ty, tx, coords, radius, target_valid)
    i = int(np.argmin(d))
    return int(coords[i, 0]), int(coords[i, 1])
