# Copyright (c) OpenMMLab. All rights reserved.
from .builder import build_sa_module
from .paconv_sa_module import (PAConvCUDASAModule, PAConvCUDASAModuleMSG,
                               PAConvSAModule, PAConvSAModuleMSG)
from .point_fp_module import PointFPModule
from .point_sa_module import PointSAModule, PointSAModuleMSG
from .stack_point_sa_module import StackedSAModuleMSG

__all__ = [
    'build_sa_module', 'PointSAModuleMSG', 'PointSAModule', 'PointFPModule',
    'PAConvSAModule', 'PAConvSAModuleMSG', 'PAConvCUDASAModule',
    'PAConvCUDASAModuleMSG', 'StackedSAModuleMSG'
]
