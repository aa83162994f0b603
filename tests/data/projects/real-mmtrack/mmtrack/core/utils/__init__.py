# Copyright (c) OpenMMLab. All rights reserved.
from .image import crop_image
from .misc import setup_multi_processes
from .visualization import imshow_mot_errors, imshow_tracks

__all__ = [
    'crop_image', 'imshow_tracks', 'imshow_mot_errors', 'setup_multi_processes'
]
