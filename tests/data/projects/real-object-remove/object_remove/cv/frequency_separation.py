"""Low/high frequency band split: split into a low band (smooth, blurred)
and a high band (the residual detail), edit the low band, keep the high
band untouched, recombine. Built on the sigma configurable Gaussian blur in
:mod:`symmetric_convolution`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .symmetric_convolution import gaussian_blur_sigma


@dataclass
class FrequencyBands:
    low: np.ndarray
    high: np.ndarray


def separate(image: np.ndarray, sigma: float = 3.0) -> FrequencyBands:
    low = gaussian_blur_sigma(image, sigma)
    high = image.astype(np.float64) - low
    return FrequencyBands(low, high)


def recombine(bands: FrequencyBands) -> np.ndarray:
    return bands.low + bands.high


def smooth_low_band(bands: FrequencyBands, extra_sigma: float = 2.0) -> FrequencyBands:
    """Soften the low band further while leaving the high band (real detail) untouched."""
    return FrequencyBands(gaussian_blur_sigma(bands.low, extra_sigma), bands.high)
