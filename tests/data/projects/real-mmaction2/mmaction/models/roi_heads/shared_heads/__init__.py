# Copyright (c) OpenMMLab. All rights reserved.
from .acrn_head import ACRNHead
from .fbo_head import FBOHead
from .lfb_infer_head import LFBInferHead

__all__ = ['ACRNHead', 'LFBInferHead', 'FBOHead']
