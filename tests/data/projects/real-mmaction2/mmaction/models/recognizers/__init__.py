# Copyright (c) OpenMMLab. All rights reserved.
from .base import BaseRecognizer
from .recognizer2d import Recognizer2D
from .recognizer3d import Recognizer3D
from .recognizer3d_mm import MMRecognizer3D
from .recognizer_audio import RecognizerAudio
from .recognizer_gcn import RecognizerGCN
from .recognizer_omni import RecognizerOmni

__all__ = [
    'BaseRecognizer', 'RecognizerGCN', 'Recognizer2D', 'Recognizer3D',
    'RecognizerAudio', 'RecognizerOmni', 'MMRecognizer3D'
]
