# SPDX-FileCopyrightText: Copyright (c) 2021-2025, NVIDIA CORPORATION. All rights reserved.
# SPDX-License-Identifier: Apache-2.0

from .normalize import normalize_data
from .scaling import scale_intensity_range
from .zoom import rand_zoom, zoom

__all__ = ["normalize_data", "scale_intensity_range", "zoom", "rand_zoom"]
