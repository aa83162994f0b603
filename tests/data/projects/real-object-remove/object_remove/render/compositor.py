"""Patch compositor — selects a blend backend and applies it.

Multi band and Poisson blending are interchangeable finishing steps chosen
per engine (tier 2 defaults to multi band, with an optional Poisson pass;
tier 3 defaults to Poisson). This compositor exposes that choice.
"""

from __future__ import annotations

from enum import Enum
from typing import Optional

import numpy as np

from ..imageutil import as_float_rgb
from ..mask.selection_enhancer import SelectionEnhancer
from .multiband_blender import MultiBandBlender
from .poisson_blender import PoissonBlend, PoissonBlend2


class BlendBackend(str, Enum):
    MULTIBAND = "multiband"
    POISSON = "poisson"
    POISSON2 = "poisson2"


class PatchCompositor:
    def __init__(self, backend: BlendBackend = BlendBackend.MULTIBAND,
                 bands: int = 3, feather_radius: float = 2.0,
                 poisson_sigma: float = 0.0, poisson_multiplier: float = 1.0,
                 device: Optional[str] = "auto"):
        self.backend = backend
        self.bands = bands
        self.feather_radius = feather_radius
        self.poisson_sigma = poisson_sigma
        self.poisson_multiplier = poisson_multiplier
        self.device = device
        self.enhancer = SelectionEnhancer()

    def composite(self, filled: np.ndarray, original: np.ndarray,
                  hole: np.ndarray) -> np.ndarray:
        """Blend the ``filled`` result into the ``original`` over the ``hole``."""
        filled = as_float_rgb(filled).astype(np.float64)
        original = as_float_rgb(original).astype(np.float64)
        hole = np.ascontiguousarray(hole > 0)

        # The pixels *under* the hole in ``original`` are the object being removed
        # (or garbage) — no blend backend may ever read them. Repair the
        # background with the fill first, so both the Poisson and multi band
        # passes see a valid target everywhere.
        safe_bg = original.copy()
        safe_bg[hole] = filled[hole]

        if self.backend == BlendBackend.MULTIBAND:
            # feather strictly outward (hole stays fully filled)
            soft = self.enhancer.soften(hole, radius=self.feather_radius, iterations=1)
            soft = np.maximum(soft, hole.astype(np.float64))
            return MultiBandBlender(self.bands, device=self.device).pyramid_blend(
                filled, safe_bg, soft)
        if self.backend == BlendBackend.POISSON2:
            return PoissonBlend2(self.poisson_sigma, self.poisson_multiplier,
                                   device=self.device).blend(
                filled, safe_bg, hole)
        return PoissonBlend(self.poisson_sigma, self.poisson_multiplier,
                              variant=1, device=self.device).blend(filled, safe_bg, hole)
