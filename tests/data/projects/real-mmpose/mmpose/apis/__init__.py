# Copyright (c) OpenMMLab. All rights reserved.
from .inference import (collect_multi_frames, inference_bottomup,
                        inference_topdown, init_model)
from .inference_3d import (collate_pose_sequence, convert_keypoint_definition,
                           extract_pose_sequence, inference_pose_lifter_model)
from .inference_tracking import _compute_iou, _track_by_iou, _track_by_oks
from .inferencers import MMPoseInferencer, Pose2DInferencer
from .visualization import visualize

__all__ = [
    'init_model', 'inference_topdown', 'inference_bottomup',
    'collect_multi_frames', 'Pose2DInferencer', 'MMPoseInferencer',
    '_track_by_iou', '_track_by_oks', '_compute_iou',
    'inference_pose_lifter_model', 'extract_pose_sequence',
    'convert_keypoint_definition', 'collate_pose_sequence', 'visualize'
]
