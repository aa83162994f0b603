"""Tier 3 — CPU PatchMatch fill engine.

Get classic CPU PatchMatch correct first; GPU resident nearest neighbour field
storage and learned feature preprocessing are natural follow on upgrades once
the CPU algorithm is solid. This package is that CPU stage.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ...runtime.device import resolve_device
from .solver import PatchMatchSolver
from .group_solver import GroupSolver, multiscale_fill
from .patch import Patch, NearestNeighborField
from .patch_scorer import PatchScorer
from .patch_search_index import PatchSearchIndex

__all__ = [
    "PatchMatchEngine", "PatchMatchSolver", "GroupSolver", "multiscale_fill",
    "Patch", "NearestNeighborField", "PatchScorer", "PatchSearchIndex",
]


class PatchMatchEngine:
    """Public tier 3 engine: multi scale, multi group PatchMatch inpainting.

    ``device="auto"`` (the default) swaps in
    ``torch_solver.TorchPatchMatchSolver`` when a GPU is available -- a drop
    in solver for the same ``multiscale_fill``/``GroupSolver`` orchestration,
    since both solvers share the same ``.radius``/``solve_level(...)``
    contract -- falling back to the plain NumPy solver otherwise. Pass
    ``device=None`` to force the NumPy solver regardless of hardware.
    """

    def __init__(self, patch_radius: int = 3, pm_iters: int = 4,
                 em_iters: int = 4, levels: Optional[int] = 4, seed: int = 1234,
                 isolate_groups: bool = True, device: Optional[str] = "auto"):
        # levels=None opts into adaptive, blur tested scale selection per
        # component/call instead of a single fixed pyramid depth -- see
        # group_solver.multiscale_fill.
        torch_device = resolve_device(device)
        if torch_device is not None:
            from .torch_solver import TorchPatchMatchSolver
            self.solver = TorchPatchMatchSolver(radius=patch_radius, pm_iters=pm_iters,
                                                em_iters=em_iters, seed=seed,
                                                device=torch_device)
        else:
            self.solver = PatchMatchSolver(radius=patch_radius, pm_iters=pm_iters,
                                           em_iters=em_iters, seed=seed)
        self.levels = levels
        self.isolate_groups = isolate_groups

    def fill(self, image: np.ndarray, mask: np.ndarray,
             progress=None, cancel=None) -> np.ndarray:
        if self.isolate_groups:
            return GroupSolver(self.solver, self.levels).fill(
                image, mask, progress=progress, cancel=cancel)
        return multiscale_fill(image, mask > 0, mask > 0, self.solver,
                               self.levels, progress=progress, cancel=cancel)
