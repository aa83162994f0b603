# Copyright (c) OpenMMLab. All rights reserved.
from .activations import SiLU
from .bbox_nms import fast_nms, multiclass_nms
from .brick_wrappers import (AdaptiveAvgPool2d, FrozenBatchNorm2d,
                             adaptive_avg_pool2d)
from .conv_upsample import ConvUpsample
from .csp_layer import CSPLayer
from .dropblock import DropBlock
from .ema import ExpMomentumEMA
from .inverted_residual import InvertedResidual
from .matrix_nms import mask_matrix_nms
from .msdeformattn_pixel_decoder import MSDeformAttnPixelDecoder
from .normed_predictor import NormedConv2d, NormedLinear
from .pixel_decoder import PixelDecoder, TransformerEncoderPixelDecoder
from .positional_encoding import (LearnedPositionalEncoding,
                                  SinePositionalEncoding,
                                  SinePositionalEncoding3D)
from .res_layer import ResLayer, SimplifiedBasicBlock
from .se_layer import ChannelAttention, DyReLU, SELayer
# yapf: disable
from .transformer import (MLP, AdaptivePadding, CdnQueryGenerator,
                          ConditionalAttention,
                          ConditionalDetrTransformerDecoder,
                          ConditionalDetrTransformerDecoderLayer,
                          DABDetrTransformerDecoder,
                          DABDetrTransformerDecoderLayer,
                          DABDetrTransformerEncoder, DDQTransformerDecoder,
                          DeformableDetrTransformerDecoder,
                          DeformableDetrTransformerDecoderLayer,
                          DeformableDetrTransformerEncoder,
                          DeformableDetrTransformerEncoderLayer,
                          DetrTransformerDecoder, DetrTransformerDecoderLayer,
                          DetrTransformerEncoder, DetrTransformerEncoderLayer,
                          DinoTransformerDecoder, DynamicConv,
                          Mask2FormerTransformerDecoder,
                          Mask2FormerTransformerDecoderLayer,
                          Mask2FormerTransformerEncoder, PatchEmbed,
                          PatchMerging, coordinate_to_encoding,
                          inverse_sigmoid, nchw_to_nlc, nlc_to_nchw)

# yapf: enable

__all__ = [
    'fast_nms', 'multiclass_nms', 'mask_matrix_nms', 'DropBlock',
    'PixelDecoder', 'TransformerEncoderPixelDecoder',
    'MSDeformAttnPixelDecoder', 'ResLayer', 'PatchMerging',
    'SinePositionalEncoding', 'LearnedPositionalEncoding', 'DynamicConv',
    'SimplifiedBasicBlock', 'NormedLinear', 'NormedConv2d', 'InvertedResidual',
    'SELayer', 'ConvUpsample', 'CSPLayer', 'adaptive_avg_pool2d',
    'AdaptiveAvgPool2d', 'PatchEmbed', 'nchw_to_nlc', 'nlc_to_nchw', 'DyReLU',
    'ExpMomentumEMA', 'inverse_sigmoid', 'ChannelAttention', 'SiLU', 'MLP',
    'DetrTransformerEncoderLayer', 'DetrTransformerDecoderLayer',
    'DetrTransformerEncoder', 'DetrTransformerDecoder',
    'DeformableDetrTransformerEncoder', 'DeformableDetrTransformerDecoder',
    'DeformableDetrTransformerEncoderLayer',
    'DeformableDetrTransformerDecoderLayer', 'AdaptivePadding',
    'coordinate_to_encoding', 'ConditionalAttention',
    'DABDetrTransformerDecoderLayer', 'DABDetrTransformerDecoder',
    'DABDetrTransformerEncoder', 'DDQTransformerDecoder',
    'ConditionalDetrTransformerDecoder',
    'ConditionalDetrTransformerDecoderLayer', 'DinoTransformerDecoder',
    'CdnQueryGenerator', 'Mask2FormerTransformerEncoder',
    'Mask2FormerTransformerDecoderLayer', 'Mask2FormerTransformerDecoder',
    'SinePositionalEncoding3D', 'FrozenBatchNorm2d'
]
