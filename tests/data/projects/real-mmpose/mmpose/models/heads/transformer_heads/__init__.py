# Copyright (c) OpenMMLab. All rights reserved.
from .edpose_head import EDPoseHead
from .transformers import (FFN, DeformableDetrTransformerDecoder,
                           DeformableDetrTransformerDecoderLayer,
                           DeformableDetrTransformerEncoder,
                           DeformableDetrTransformerEncoderLayer,
                           DetrTransformerDecoder, DetrTransformerDecoderLayer,
                           DetrTransformerEncoder, DetrTransformerEncoderLayer,
                           PositionEmbeddingSineHW)

__all__ = [
    'EDPoseHead', 'DetrTransformerEncoder', 'DetrTransformerDecoder',
    'DetrTransformerEncoderLayer', 'DetrTransformerDecoderLayer',
    'DeformableDetrTransformerEncoder', 'DeformableDetrTransformerDecoder',
    'DeformableDetrTransformerEncoderLayer',
    'DeformableDetrTransformerDecoderLayer', 'PositionEmbeddingSineHW', 'FFN'
]
