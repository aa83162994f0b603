# Copyright (c) OpenMMLab. All rights reserved.
from .inference import (detection_inference, inference_recognizer,
                        inference_skeleton, init_recognizer, pose_inference)
from .inferencers import *  # NOQA

__all__ = [
    'init_recognizer', 'inference_recognizer', 'inference_skeleton',
    'detection_inference', 'pose_inference'
]
