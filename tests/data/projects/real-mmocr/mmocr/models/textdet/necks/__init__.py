# Copyright (c) OpenMMLab. All rights reserved.
from .fpem_ffm import FPEM_FFM
from .fpn_cat import FPNC
from .fpn_unet import FPN_UNet
from .fpnf import FPNF

__all__ = ['FPEM_FFM', 'FPNF', 'FPNC', 'FPN_UNet']
