# SPDX-License-Identifier: MIT
# Copyright (c) 2023-now michaelfeil

IMAGE_COL_MODELS = [
    "ColPali",
    "ColQwen2",
    "ColQwen2_5",
    "ColIdefics2",
]

IMAGE_MODELS = ["Clip"] + IMAGE_COL_MODELS
