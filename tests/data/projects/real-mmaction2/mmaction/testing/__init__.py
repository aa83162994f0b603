# Copyright (c) OpenMMLab. All rights reserved.
from ._utils import (check_norm_state, generate_backbone_demo_inputs,
                     generate_detector_demo_inputs, get_audio_recognizer_cfg,
                     get_cfg, get_detector_cfg, get_localizer_cfg,
                     get_recognizer_cfg, get_similarity_cfg,
                     get_skeletongcn_cfg)

__all__ = [
    'check_norm_state', 'generate_backbone_demo_inputs', 'get_cfg',
    'get_recognizer_cfg', 'get_audio_recognizer_cfg', 'get_localizer_cfg',
    'get_detector_cfg', 'generate_detector_demo_inputs', 'get_skeletongcn_cfg',
    'get_similarity_cfg'
]
