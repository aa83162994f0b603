"""Scanline/run-length selection model.

A selection is a list of rows, each holding a sorted list of
non-overlapping, non-adjacent inclusive ``(start, end)`` column spans.
``add_region`` inserts a span via binary search and absorbs any spans that
overlap or touch it. This is the data structure ``SelectionEnhancer.
process_selection`` uses for the 15%-85% object-separation overlap gate.
"""

from __future__ import annotations

import bisect
from typing import List, Tuple

import numpy as np

Span = Tuple[int, int]


class ScanlineSelection:
    """Run-length selection over a fixed ``(height, width)`` canvas."""

    def __init__(self, height: int, width: int):
        self.height = height
        self.width = width
        self.rows: List[List[Span]] = [[] for _ in range(height)]

    def add_region(self, row: int, x0: int, x1: int) -> None:
        """Insert inclusive span ``[x0, x1]`` into ``row``, merging with any
        overlapping or adjacent existing spans."""
        if row < 0 or row >= self.height or x1 < x0:
            return
        x0 = max(0, x0)
        x1 = min(self.width - 1, x1)
        if x1 < x0:
            return
        spans = self.rows[row]
        starts = [s[0] for s in spans]
        idx = bisect.bisect_left(starts, x0)
        j = idx
        while j > 0 and spans[j - 1][1] >= x0 - 1:
            j -= 1
        k = idx
        while k < len(spans) and spans[k][0] <= x1 + 1:
            k += 1
        new_start, new_end = x0, x1
        if j < k:
            new_start = min(new_start, spans[j][0])
            new_end = max(new_end, spans[k - 1][1])
        spans[j:k] = [(new_start, new_end)]

    @classmethod
    def from_mask(cls, mask: np.ndarray) -> "ScanlineSelection":
        h, w = mask.shape
        sel = cls(h, w)
        mask = mask > 0
        for y in range(h):
            row = mask[y]
            if not row.any():
                continue
            idx = np.flatnonzero(np.diff(np.concatenate(([0], row.view(np.int8), [0]))))
            spans = [(int(a), int(b) - 1) for a, b in zip(idx[0::2], idx[1::2])]
            sel.rows[y] = spans
        return sel

    def to_mask(self) -> np.ndarray:
        mask = np.zeros((self.height, self.width), dtype=bool)
        for y, spans in enumerate(self.rows):
            for x0, x1 in spans:
                mask[y, x0:x1 + 1] = True
        return mask

    def intersect(self, other: "ScanlineSelection") -> "ScanlineSelection":
        """Per-row interval intersection."""
        out = ScanlineSelection(self.height, self.width)
        for y in range(min(self.height, other.height)):
            a, b = self.rows[y], other.rows[y]
            i = j = 0
            result: List[Span] = []
            while i < len(a) and j < len(b):
                lo = max(a[i][0], b[j][0])
                hi = min(a[i][1], b[j][1])
                if lo <= hi:
                    result.append((lo, hi))
                if a[i][1] < b[j][1]:
                    i += 1
                else:
                    j += 1
            out.rows[y] = result
        return out

    def difference(self, other: "ScanlineSelection") -> "ScanlineSelection":
        """Per-row interval subtraction: ``self`` minus ``other``."""
        out = ScanlineSelection(self.height, self.width)
        for y in range(self.height):
            a = self.rows[y]
            b = other.rows[y] if y < other.height else []
            result: List[Span] = []
            for x0, x1 in a:
                cur = x0
                for bx0, bx1 in b:
                    if bx1 < cur or bx0 > x1:
                        continue
                    if bx0 > cur:
                        result.append((cur, min(bx0 - 1, x1)))
                    cur = max(cur, bx1 + 1)
                    if cur > x1:
                        break
                if cur <= x1:
                    result.append((cur, x1))
            out.rows[y] = result
        return out

    def total_length(self) -> int:
        return sum(x1 - x0 + 1 for spans in self.rows for x0, x1 in spans)

    def row_overlap_ratio(self, other: "ScanlineSelection") -> float:
        """Percentage of ``self``'s covered columns also covered by
        ``other`` (used by the 15%-85% object-separation gate)."""
        total = self.total_length()
        if total == 0:
            return 0.0
        return self.intersect(other).total_length() / total * 100.0
