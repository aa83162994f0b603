# SPDX-FileCopyrightText: Copyright (c) 2021-2025, NVIDIA CORPORATION. All rights reserved.
# SPDX-License-Identifier: Apache-2.0

from .rotate_and_flip import (
    image_flip,
    image_rotate_90,
    rand_image_flip,
    rand_image_rotate_90,
)

__all__ = [
    "image_rotate_90",
    "image_flip",
    "rand_image_flip",
    "rand_image_rotate_90",
]
