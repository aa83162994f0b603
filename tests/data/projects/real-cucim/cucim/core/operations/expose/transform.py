# SPDX-FileCopyrightText: Copyright (c) 2021, NVIDIA CORPORATION.
# SPDX-License-Identifier: Apache-2.0

from cucim.core.operations.color import color_jitter, rand_color_jitter  # noqa
from cucim.core.operations.intensity import (  # noqa
    normalize_data,
    rand_zoom,
    scale_intensity_range,
    zoom,
)
from cucim.core.operations.spatial import (  # noqa
    image_flip,
    image_rotate_90,
    rand_image_flip,
    rand_image_rotate_90,
)
