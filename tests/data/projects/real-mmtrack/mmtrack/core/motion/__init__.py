# Copyright (c) OpenMMLab. All rights reserved.
from .flow import flow_warp_feats

__all__ = ['flow_warp_feats']
