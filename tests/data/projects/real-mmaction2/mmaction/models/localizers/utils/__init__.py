# Copyright (c) OpenMMLab. All rights reserved.
from .bsn_utils import generate_bsp_feature, generate_candidate_proposals
from .proposal_utils import (post_processing, soft_nms, temporal_iop,
                             temporal_iou)
from .tcanet_utils import (batch_iou, bbox_se_transform_batch,
                           bbox_se_transform_inv, bbox_xw_transform_batch,
                           bbox_xw_transform_inv)

__all__ = [
    'batch_iou', 'bbox_se_transform_batch', 'bbox_se_transform_inv',
    'bbox_xw_transform_batch', 'bbox_xw_transform_inv', 'generate_bsp_feature',
    'generate_candidate_proposals', 'post_processing', 'soft_nms',
    'temporal_iop', 'temporal_iou'
]
