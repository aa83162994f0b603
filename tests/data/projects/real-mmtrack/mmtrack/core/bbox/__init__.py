# Copyright (c) OpenMMLab. All rights reserved.
from .iou_calculators import calculate_region_overlap
from .transforms import (bbox_cxcyah_to_xyxy, bbox_cxcywh_to_x1y1wh,
                         bbox_xyxy_to_cxcyah, bbox_xyxy_to_x1y1wh, quad2bbox)

__all__ = [
    'quad2bbox', 'bbox_cxcywh_to_x1y1wh', 'bbox_xyxy_to_x1y1wh',
    'calculate_region_overlap', 'bbox_xyxy_to_cxcyah', 'bbox_cxcyah_to_xyxy'
]
