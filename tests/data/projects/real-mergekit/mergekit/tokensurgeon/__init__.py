# Copyright (C) 2026 Arcee AI
# SPDX-License-Identifier: LGPL-3.0-only

from .common_interpolation import (
    DistanceMetric,
    WeightingScheme,
    common_interp_approximate,
)
from .magikarp import well_trained_tokens
from .omp import batch_mp_rope, batch_omp
from .pca import landmark_pca_approximate
from .subword import SubwordMethod, subword_approximate
from .token_basis import compute_token_basis

__all__ = [
    "common_interp_approximate",
    "DistanceMetric",
    "WeightingScheme",
    "batch_omp",
    "batch_mp_rope",
    "SubwordMethod",
    "subword_approximate",
    "well_trained_tokens",
    "compute_token_basis",
    "landmark_pca_approximate",
]
