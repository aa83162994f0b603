# Copyright (c) OpenMMLab. All rights reserved.
from .masktrack_rcnn import MaskTrackRCNN

__all__ = ['MaskTrackRCNN']
