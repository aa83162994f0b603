"""Pipeline orchestrator — ``RemoveObjectJob``.

Wires Stage A (mask) to B (scheduling) to C (fill, engine tier selection) to
E (blend) to F (session), with progress reporting and cooperative cancellation.

Engine tier selection heuristic:
  * tiny holes / low end path to tier 1 comparator (segment aware CPU SSD)
  * homogeneous repetitive texture to tier 2 (self similar rigid shift), the
    cheap default fast path
  * structured / complex holes to tier 1 primary (quad tree patch grid
    solve), the general purpose solver
  * tier 3 (multi scale PatchMatch) stays available for explicit selection
AUTO tries tier 2 first (cheap) and falls back to tier 1 primary when the
rigid shift continuity score across the hole boundary is poor.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, List, Optional

import numpy as np

from ..imageutil import as_float_rgb, rgb_to_gray
from ..mask.connected_components import split_components
from ..mask.selection_enhancer import SelectionEnhancer
from ..fillengines import (
    SegmentAwarePatchFillEngine, SelfSimilarShiftEngine, PatchMatchEngine,
    PrimaryFillEngine,
)
from ..render.compositor import PatchCompositor, BlendBackend
from ..session.undo_session_manager import SessionManager


class EngineTier(str, Enum):
    AUTO = "auto"
    TIER1_COMPARATOR = "tier1"
    TIER1_PRIMARY = "tier1_primary"
    TIER2_SHIFT = "tier2"
    TIER3_PATCHMATCH = "tier3"


ProgressFn = Callable[[str, float], None]
CancelFn = Callable[[], bool]


@dataclass
class JobResult:
    image: np.ndarray
    tier_used: EngineTier
    cancelled: bool = False
    stages: List[str] = field(default_factory=list)
    session_id: Optional[str] = None


class RemoveObjectJob:
    """One object removal edit. Reusable across masks on the same image."""

    LABEL = "Remove objects"

    def __init__(self, image: np.ndarray,
                 manager: Optional[SessionManager] = None,
                 blend_backend: BlendBackend = BlendBackend.POISSON2,
                 tiny_hole_area: int = 64,
                 shift_continuity_threshold: float = 0.004,
                 device: Optional[str] = "auto"):
        self.image = as_float_rgb(image).astype(np.float64)
        self.manager = manager
        self.blend_backend = blend_backend
        self.tiny_hole_area = tiny_hole_area
        # tier 2 rigid shift is kept only if its border continuity SSD is below
        # this; otherwise AUTO falls back to tier 3 PatchMatch.
        self.shift_continuity_threshold = shift_continuity_threshold
        # "auto" (default) = every engine/blender uses a GPU if one is
        # available, otherwise the plain NumPy path. "cuda"/"mps"/"cpu" force
        # that exact torch backend; None forces plain NumPy regardless of
        # hardware -- see runtime/device.py.
        self.device = device
        self._enh = SelectionEnhancer()

    def run(self, mask: np.ndarray, tier: EngineTier = EngineTier.AUTO,
            refine_mask: bool = True, progress: Optional[ProgressFn] = None,
            cancel: Optional[CancelFn] = None) -> JobResult:
        stages: List[str] = []
        last_frac = [0.0]  # progress must never decrease, even across a
        #                    tier 2 to tier 3 fallback that restarts fill at 0.

        def report(stage: str, frac: float):
            stages.append(stage) if stage not in stages else None
            if progress is not None:
                clamped_frac = max(last_frac[0], float(np.clip(frac, 0.0, 1.0)))
                last_frac[0] = clamped_frac
                progress(stage, clamped_frac)

        def cancelled() -> bool:
            return cancel is not None and cancel()

        # Stage A: mask refinement
        report("mask", 0.0)
        hole = np.ascontiguousarray(mask > 0)
        if refine_mask:
            # Smooth jagged edges, but never drop user selected pixels — eroding
            # the mask would leave slivers of the object unremoved. Union back
            # with the original selection so refinement can only grow coverage.
            hole = self._enh.process_selection(hole, radius=3.0, iterations=1) | (mask > 0)
        if not hole.any():
            return JobResult(self.image.copy(), tier, stages=stages)

        # Stage F (open): session
        session = None
        if self.manager is not None:
            session = self.manager.new_session()
            session.record(hole, note=self.LABEL)

        if cancelled():
            return JobResult(self.image.copy(), tier, cancelled=True, stages=stages)

        # Stage C: pick tier & fill
        report("fill", 0.05)
        filled, chosen = self._run_engine(tier, hole,
                                          lambda f: report("fill", 0.05 + 0.8 * f),
                                          cancelled)
        if cancelled():
            return JobResult(self.image.copy(), chosen, cancelled=True, stages=stages)

        # Stage E: blend
        report("blend", 0.9)
        backend = self._backend_for_tier(chosen)
        compositor = PatchCompositor(backend, bands=3, feather_radius=2.0, device=self.device)
        out = compositor.composite(filled, self.image, hole)

        report("done", 1.0)
        return JobResult(out, chosen, stages=stages,
                         session_id=session.session_id if session else None)

    def _run_engine(self, tier: EngineTier, hole: np.ndarray,
                    progress, cancelled):
        """Run a fill engine. For AUTO: truly tiny holes go to tier 1; otherwise
        try the cheap tier 2 rigid shift first and fall back to tier 3
        PatchMatch when its boundary continuity is poor."""
        area = int(hole.sum())

        if tier == EngineTier.TIER1_COMPARATOR or (
                tier == EngineTier.AUTO and area <= self.tiny_hole_area):
            tier1_engine = SegmentAwarePatchFillEngine(patch_radius=3, device=self.device)
            return tier1_engine.fill(self.image, hole, progress=progress,
                                     cancel=cancelled), EngineTier.TIER1_COMPARATOR

        if tier in (EngineTier.TIER2_SHIFT, EngineTier.AUTO):
            tier2_engine = SelfSimilarShiftEngine(margin=8, device=self.device)
            out = tier2_engine.fill(self.image, hole, progress=progress, cancel=cancelled)
            good = tier2_engine.last_border_score <= self.shift_continuity_threshold
            if tier == EngineTier.TIER2_SHIFT or good:
                return out, EngineTier.TIER2_SHIFT
            # AUTO + poor continuity: fall back to the general purpose
            # quad-tree patch-grid solver, not straight to PatchMatch.

        if tier in (EngineTier.TIER1_PRIMARY, EngineTier.AUTO):
            primary_engine = PrimaryFillEngine(device=self.device)
            return primary_engine.fill(self.image, hole, progress=progress,
                                       cancel=cancelled), EngineTier.TIER1_PRIMARY

        tier3_engine = PatchMatchEngine(levels=4, device=self.device)
        return tier3_engine.fill(self.image, hole, progress=progress,
                                 cancel=cancelled), EngineTier.TIER3_PATCHMATCH

    def _backend_for_tier(self, tier: EngineTier) -> BlendBackend:
        return self.blend_backend
