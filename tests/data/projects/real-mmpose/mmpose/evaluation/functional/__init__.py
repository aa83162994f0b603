# Copyright (c) OpenMMLab. All rights reserved.
from .keypoint_eval import (keypoint_auc, keypoint_epe, keypoint_mpjpe,
                            keypoint_nme, keypoint_pck_accuracy,
                            multilabel_classification_accuracy,
                            pose_pck_accuracy, simcc_pck_accuracy)
from .nms import nearby_joints_nms, nms, nms_torch, oks_nms, soft_oks_nms
from .transforms import transform_ann, transform_pred, transform_sigmas

__all__ = [
    'keypoint_pck_accuracy', 'keypoint_auc', 'keypoint_nme', 'keypoint_epe',
    'pose_pck_accuracy', 'multilabel_classification_accuracy',
    'simcc_pck_accuracy', 'nms', 'oks_nms', 'soft_oks_nms', 'keypoint_mpjpe',
    'nms_torch', 'transform_ann', 'transform_sigmas', 'transform_pred',
    'nearby_joints_nms'
]
