# Copyright (c) OpenMMLab. All rights reserved.
from .selsa_bbox_head import SelsaBBoxHead

__all__ = ['SelsaBBoxHead']
