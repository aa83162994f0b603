# Copyright (c) OpenMMLab. All rights reserved.
from .bbox import (bbox_clip_border, bbox_corner2xyxy, bbox_cs2xywh,
                   bbox_cs2xyxy, bbox_xywh2cs, bbox_xywh2xyxy,
                   bbox_xyxy2corner, bbox_xyxy2cs, bbox_xyxy2xywh, flip_bbox,
                   get_pers_warp_matrix, get_udp_warp_matrix, get_warp_matrix)
from .keypoint import flip_keypoints, keypoint_clip_border
from .multilevel_pixel_data import MultilevelPixelData
from .pose_data_sample import PoseDataSample
from .utils import merge_data_samples, revert_heatmap, split_instances

__all__ = [
    'PoseDataSample', 'MultilevelPixelData', 'bbox_cs2xywh', 'bbox_cs2xyxy',
    'bbox_xywh2cs', 'bbox_xywh2xyxy', 'bbox_xyxy2cs', 'bbox_xyxy2xywh',
    'flip_bbox', 'get_udp_warp_matrix', 'get_warp_matrix', 'flip_keypoints',
    'merge_data_samples', 'revert_heatmap', 'split_instances',
    'keypoint_clip_border', 'bbox_clip_border', 'bbox_xyxy2corner',
    'bbox_corner2xyxy', 'get_pers_warp_matrix'
]
