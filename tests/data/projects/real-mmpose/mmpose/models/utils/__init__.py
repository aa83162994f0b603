# Copyright (c) OpenMMLab. All rights reserved.
from .check_and_update_config import check_and_update_config
from .ckpt_convert import pvt_convert
from .csp_layer import CSPLayer
from .misc import filter_scores_and_topk
from .ops import FrozenBatchNorm2d, inverse_sigmoid
from .reparam_layers import RepVGGBlock
from .rtmcc_block import RTMCCBlock, rope
from .transformer import (DetrTransformerEncoder, GAUEncoder, PatchEmbed,
                          SinePositionalEncoding, nchw_to_nlc, nlc_to_nchw)

__all__ = [
    'PatchEmbed', 'nchw_to_nlc', 'nlc_to_nchw', 'pvt_convert', 'RTMCCBlock',
    'rope', 'check_and_update_config', 'filter_scores_and_topk', 'CSPLayer',
    'FrozenBatchNorm2d', 'inverse_sigmoid', 'GAUEncoder',
    'SinePositionalEncoding', 'RepVGGBlock', 'DetrTransformerEncoder'
]
