# Copyright (c) OpenMMLab. All rights reserved.
from .det_inferencer import DetInferencer
from .inference import (async_inference_detector, inference_detector,
                        inference_mot, init_detector, init_track_model)

__all__ = [
    'init_detector', 'async_inference_detector', 'inference_detector',
    'DetInferencer', 'inference_mot', 'init_track_model'
]
