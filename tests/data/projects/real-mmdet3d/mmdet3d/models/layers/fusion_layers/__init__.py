# Copyright (c) OpenMMLab. All rights reserved.
from .coord_transform import (apply_3d_transformation, bbox_2d_transform,
                              coord_2d_transform)
from .point_fusion import PointFusion
from .vote_fusion import VoteFusion

__all__ = [
    'PointFusion', 'VoteFusion', 'apply_3d_transformation',
    'bbox_2d_transform', 'coord_2d_transform'
]
