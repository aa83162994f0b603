# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.

# This source code is licensed under the license found in the
# LICENSE file in the root directory of this source tree.

from .common import LayerNorm2d as LayerNorm2d
from .common import MLPBlock as MLPBlock
from .image_encoder import ImageEncoderViT as ImageEncoderViT
from .mask_decoder import MaskDecoder as MaskDecoder
from .prompt_encoder import PositionEmbeddingRandom as PositionEmbeddingRandom
from .prompt_encoder import PromptEncoder as PromptEncoder
from .sam import Sam as Sam
from .transformer import Attention as Attention
from .transformer import TwoWayAttentionBlock as TwoWayAttentionBlock
from .transformer import TwoWayTransformer as TwoWayTransformer
