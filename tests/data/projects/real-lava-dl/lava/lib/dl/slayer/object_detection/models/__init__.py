# Copyright (C) 2023 Intel Corporation
# SPDX-License-Identifier:  BSD-3-Clause

from . import tiny_yolov3_str, yolo_kp
from . import yolo_kp_events


__all__ = [
    'tiny_yolov3_str', 'yolo_kp',
    'yolo_kp_events'
]
