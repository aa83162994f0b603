# Copyright (c) OpenMMLab. All rights reserved.
from .conditional_detr_layers import (ConditionalDetrTransformerDecoder,
                                      ConditionalDetrTransformerDecoderLayer)
from .dab_detr_layers import (DABDetrTransformerDecoder,
                              DABDetrTransformerDecoderLayer,
                              DABDetrTransformerEncoder)
from .ddq_detr_layers import DDQTransformerDecoder
from .deformable_detr_layers import (DeformableDetrTransformerDecoder,
                                     DeformableDetrTransformerDecoderLayer,
                                     DeformableDetrTransformerEncoder,
                                     DeformableDetrTransformerEncoderLayer)
from .detr_layers import (DetrTransformerDecoder, DetrTransformerDecoderLayer,
                          DetrTransformerEncoder, DetrTransformerEncoderLayer)
from .dino_layers import CdnQueryGenerator, DinoTransformerDecoder
from .grounding_dino_layers import (GroundingDinoTransformerDecoder,
                                    GroundingDinoTransformerDecoderLayer,
                                    GroundingDinoTransformerEncoder)
from .mask2former_layers import (Mask2FormerTransformerDecoder,
                                 Mask2FormerTransformerDecoderLayer,
                                 Mask2FormerTransformerEncoder)
from .utils import (MLP, AdaptivePadding, ConditionalAttention, DynamicConv,
                    PatchEmbed, PatchMerging, coordinate_to_encoding,
                    inverse_sigmoid, nchw_to_nlc, nlc_to_nchw)

__all__ = [
    'nlc_to_nchw', 'nchw_to_nlc', 'AdaptivePadding', 'PatchEmbed',
    'PatchMerging', 'inverse_sigmoid', 'DynamicConv', 'MLP',
    'DetrTransformerEncoder', 'DetrTransformerDecoder',
    'DetrTransformerEncoderLayer', 'DetrTransformerDecoderLayer',
    'DeformableDetrTransformerEncoder', 'DeformableDetrTransformerDecoder',
    'DeformableDetrTransformerEncoderLayer',
    'DeformableDetrTransformerDecoderLayer', 'coordinate_to_encoding',
    'ConditionalAttention', 'DABDetrTransformerDecoderLayer',
    'DABDetrTransformerDecoder', 'DABDetrTransformerEncoder',
    'DDQTransformerDecoder', 'ConditionalDetrTransformerDecoder',
    'ConditionalDetrTransformerDecoderLayer', 'DinoTransformerDecoder',
    'CdnQueryGenerator', 'Mask2FormerTransformerEncoder',
    'Mask2FormerTransformerDecoderLayer', 'Mask2FormerTransformerDecoder',
    'GroundingDinoTransformerDecoderLayer', 'GroundingDinoTransformerEncoder',
    'GroundingDinoTransformerDecoder'
]
