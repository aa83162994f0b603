# Copyright (c) OpenMMLab. All rights reserved.
from .bbox_overlaps import bbox_overlaps
from .transforms import (bbox_clip_border, bbox_corner2xyxy, bbox_cs2xywh,
                         bbox_cs2xyxy, bbox_xywh2cs, bbox_xywh2xyxy,
                         bbox_xyxy2corner, bbox_xyxy2cs, bbox_xyxy2xywh,
                         flip_bbox, get_pers_warp_matrix, get_udp_warp_matrix,
                         get_warp_matrix)

__all__ = [
    'bbox_cs2xywh', 'bbox_cs2xyxy', 'bbox_xywh2cs', 'bbox_xywh2xyxy',
    'bbox_xyxy2cs', 'bbox_xyxy2xywh', 'flip_bbox', 'get_udp_warp_matrix',
    'get_warp_matrix', 'bbox_overlaps', 'bbox_clip_border', 'bbox_xyxy2corner',
    'bbox_corner2xyxy', 'get_pers_warp_matrix'
]
