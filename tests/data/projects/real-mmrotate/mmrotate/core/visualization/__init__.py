# Copyright (c) OpenMMLab. All rights reserved.
from .image import imshow_det_rbboxes
from .palette import get_palette

__all__ = ['imshow_det_rbboxes', 'get_palette']
