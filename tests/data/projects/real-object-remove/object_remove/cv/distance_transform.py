"""Distance to the nearest mask boundary, feeding feathering/falloff weights
(background blur, soft masks).

Approximate (8-connected, Chebyshev-ish) distance via repeated boolean
dilation, fully vectorised per round rather than a per pixel Python scan.
"""

from __future__ import annotations

import numpy as np


def distance_transform(mask: np.ndarray, connectivity: int = 8) -> np.ndarray:
    """Distance from each ``True`` pixel to the nearest ``False`` pixel."""
    H, W = mask.shape
    dist = np.zeros((H, W), dtype=np.float64)
    remaining = mask.copy()
    frontier = ~mask
    d = 0
    while remaining.any():
        d += 1
        dil = frontier.copy()
        dil[1:, :] |= frontier[:-1, :]
        dil[:-1, :] |= frontier[1:, :]
        dil[:, 1:] |= frontier[:, :-1]
        dil[:, :-1] |= frontier[:, 1:]
        if connectivity == 8:
            dil[1:, 1:] |= frontier[:-1, :-1]
            dil[1:, :-1] |= frontier[:-1, 1:]
            dil[:-1, 1:] |= frontier[1:, :-1]
            dil[:-1, :-1] |= frontier[1:, 1:]
        newly = dil & remaining
        if not newly.any():
            dist[remaining] = d
            break
        dist[newly] = d
        remaining &= ~newly
        frontier = newly
    return dist
