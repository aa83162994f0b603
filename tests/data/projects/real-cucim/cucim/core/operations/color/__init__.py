# SPDX-FileCopyrightText: Copyright (c) 2021-2025, NVIDIA CORPORATION. All rights reserved.
# SPDX-License-Identifier: Apache-2.0

from .jitter import color_jitter, rand_color_jitter
from .stain_normalizer import (
    absorbance_to_image,
    image_to_absorbance,
    normalize_colors_pca,
    stain_extraction_pca,
)

__all__ = [
    "color_jitter",
    "rand_color_jitter" "absorbance_to_image",
    "image_to_absorbance",
    "stain_extraction_pca",
    "normalize_colors_pca",
]
