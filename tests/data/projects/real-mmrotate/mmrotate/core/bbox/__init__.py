# Copyright (c) OpenMMLab. All rights reserved.
from .assigners import (ATSSKldAssigner, ATSSObbAssigner, ConvexAssigner,
                        MaxConvexIoUAssigner, SASAssigner)
from .builder import build_assigner, build_bbox_coder, build_sampler
from .coder import (CSLCoder, DeltaXYWHAHBBoxCoder, DeltaXYWHAOBBoxCoder,
                    GVFixCoder, GVRatioCoder, MidpointOffsetCoder)
from .iou_calculators import RBboxOverlaps2D, rbbox_overlaps
from .samplers import RRandomSampler
from .transforms import (bbox_mapping_back, gaussian2bbox, gt2gaussian,
                         hbb2obb, norm_angle, obb2hbb, obb2poly, obb2poly_np,
                         obb2xyxy, poly2obb, poly2obb_np, rbbox2result,
                         rbbox2roi)
from .utils import GaussianMixture

__all__ = [
    'RBboxOverlaps2D', 'rbbox_overlaps', 'rbbox2result', 'rbbox2roi',
    'norm_angle', 'poly2obb', 'poly2obb_np', 'obb2poly', 'obb2hbb', 'obb2xyxy',
    'hbb2obb', 'obb2poly_np', 'RRandomSampler', 'DeltaXYWHAOBBoxCoder',
    'DeltaXYWHAHBBoxCoder', 'MidpointOffsetCoder', 'GVFixCoder',
    'GVRatioCoder', 'ConvexAssigner', 'MaxConvexIoUAssigner', 'SASAssigner',
    'ATSSKldAssigner', 'gaussian2bbox', 'gt2gaussian', 'GaussianMixture',
    'build_assigner', 'build_bbox_coder', 'build_sampler', 'bbox_mapping_back',
    'CSLCoder', 'ATSSObbAssigner'
]
