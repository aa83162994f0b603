"""Stage C — the fill engine tiers.

* Tier 1 comparator — :class:`SegmentAwarePatchFillEngine`, segment aware
  SSD; the cheap fallback for tiny holes / low end devices.
* Tier 1 primary — :class:`PrimaryFillEngine`, quad-tree patch-grid solve
  with adaptive scale selection; the general purpose solver.
* Tier 2 — :class:`SelfSimilarShiftEngine`, ORB+BRIEF rigid shift + DP seam
  carve (the fast default path for repetitive texture).
* Tier 3 — :class:`PatchMatchEngine`, multi scale, multi group PatchMatch.

Every engine exposes the same ``fill(image, mask, progress=None, cancel=None)``
signature so the pipeline can pick a tier without special casing.
"""

from .patch_comparator import SegmentAwarePatchFillEngine
from .self_similar_shift import SelfSimilarShiftEngine
from .patchmatch import PatchMatchEngine
from .primary import PrimaryFillEngine
from .clone_stamp import CloneStampEngine, offset_from_points
from .wire_removal import (
    ridge_response, find_wire_by_tap, find_wire_by_two_points, find_wire_by_path,
)

__all__ = [
    "SegmentAwarePatchFillEngine",
    "SelfSimilarShiftEngine",
    "PatchMatchEngine",
    "PrimaryFillEngine",
    "CloneStampEngine",
    "offset_from_points",
    "ridge_response", "find_wire_by_tap", "find_wire_by_two_points", "find_wire_by_path",
]
