# Copyright (c) OpenMMLab. All rights reserved.
from .metric_calculators import BBoxOverlaps2D, PoseOKS
from .sim_ota_assigner import SimOTAAssigner

__all__ = ['SimOTAAssigner', 'PoseOKS', 'BBoxOverlaps2D']
