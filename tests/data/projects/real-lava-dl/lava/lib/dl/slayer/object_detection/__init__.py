# Copyright (C) 2023 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import boundingbox as bbox
from . import boundingbox, dataset, models
from .yolo_base import YOLOtarget, YOLOLoss, YOLOBase


__all__ = [
    'bbox', 'boundingbox', 'dataset',
    'models', 'YOLOtarget',
    'YOLOLoss', 'YOLOBase'
]
