# Copyright (c) OpenMMLab. All rights reserved.
from .deformable_detr_layers import (DeformableDetrTransformerDecoder,
                                     DeformableDetrTransformerDecoderLayer,
                                     DeformableDetrTransformerEncoder,
                                     DeformableDetrTransformerEncoderLayer)
from .detr_layers import (DetrTransformerDecoder, DetrTransformerDecoderLayer,
                          DetrTransformerEncoder, DetrTransformerEncoderLayer)
from .utils import FFN, PositionEmbeddingSineHW

__all__ = [
    'DetrTransformerEncoder', 'DetrTransformerDecoder',
    'DetrTransformerEncoderLayer', 'DetrTransformerDecoderLayer',
    'DeformableDetrTransformerEncoder', 'DeformableDetrTransformerDecoder',
    'DeformableDetrTransformerEncoderLayer',
    'DeformableDetrTransformerDecoderLayer', 'PositionEmbeddingSineHW', 'FFN'
]
