"""AI assisted auto select — the "tap to select" front end.

A real deployment would back this with a quantised segmentation model (a
generic one, or a person specific variant for portrait selection). This
module defines the clean interface such a model would plug into and provides
a **working, dependency free fallback**: a tap seeded flood fill over color
similarity, so tap to select runs end to end without shipping any model
weights.

To wire a real model, subclass :class:`AutoSelectModel` and override
:meth:`segment`.
"""

from __future__ import annotations

from collections import deque
from typing import Optional, Tuple

import numpy as np

from ..imageutil import as_float_rgb, rgb_to_gray


class AutoSelectModel:
    """Interface for tap/box to segmentation mask.

    ``backend`` is informational; the base class runs the color flood fallback.
    A real deployment would pass a name identifying the loaded model (a
    generic segmentation network, or a person specific variant) and load
    quantised weights in an override.
    """

    def __init__(self, backend: str = "color_flood_fallback"):
        self.backend = backend

    def segment(self, image: np.ndarray, seed: Tuple[int, int],
                tolerance: float = 0.10, max_area_frac: float = 0.6) -> np.ndarray:
        """Return a boolean object mask from a tap ``seed`` = (x, y).

        Base implementation: region grow flood fill in color space, capped so a
        runaway grow can't select the whole frame.
        """
        img = as_float_rgb(image)
        return self._color_flood(img, seed, tolerance, max_area_frac)

    def segment_box(self, image: np.ndarray, box: Tuple[int, int, int, int],
                    tolerance: float = 0.12) -> np.ndarray:
        """Segment the dominant object inside a box (x0, y0, x1, y1).

        Seeds the flood from the box centre, a stand in for the model's
        box prompt path.
        """
        x0, y0, x1, y1 = box
        seed = ((x0 + x1) // 2, (y0 + y1) // 2)
        return self.segment(image, seed, tolerance)

    @staticmethod
    def _color_flood(img: np.ndarray, seed: Tuple[int, int],
                     tolerance: float, max_area_frac: float) -> np.ndarray:
        h, w = img.shape[:2]
        seed_x, seed_y = int(seed[0]), int(seed[1])
        mask = np.zeros((h, w), dtype=bool)
        if not (0 <= seed_x < w and 0 <= seed_y < h):
            return mask
        seed_color = img[seed_y, seed_x]
        tolerance_sq_threshold = tolerance * tolerance * 3.0  # sum over 3 channels
        max_pixels = int(max_area_frac * h * w)

        visited = np.zeros((h, w), dtype=bool)
        frontier = deque([(seed_x, seed_y)])
        visited[seed_y, seed_x] = True
        count = 0
        while frontier and count < max_pixels:
            x, y = frontier.popleft()
            diff = img[y, x] - seed_color
            if float(diff.dot(diff)) > tolerance_sq_threshold:
                continue
            mask[y, x] = True
            count += 1
            for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                if 0 <= nx < w and 0 <= ny < h and not visited[ny, nx]:
                    visited[ny, nx] = True
                    frontier.append((nx, ny))
        return mask
