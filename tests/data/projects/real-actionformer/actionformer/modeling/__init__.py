from .blocks import (
    # v1
    MaskedConv1D, MaskedMHCA, MaskedMHA, LayerNorm, RMSNorm,
    TransformerBlock, ConvBlock, Scale, AffineDropPath,
    # v2 - modern attention
    MaskedMHAv2,
    TransformerBlockv2,
    RotaryPositionEmbedding,
    SwiGLU,
    rotate_half,
    apply_rotary_pos_emb,
    HAS_FLASH_ATTN,
)
from .models import make_backbone, make_neck, make_meta_arch, make_generator
from . import backbones      # backbones
from . import necks          # necks
from . import loc_generators # location generators
from . import meta_archs     # full models

__all__ = [
    # v1
    'MaskedConv1D', 'MaskedMHCA', 'MaskedMHA', 'LayerNorm', 'RMSNorm',
    'TransformerBlock', 'ConvBlock', 'Scale', 'AffineDropPath',
    # v2 - modern attention
    'MaskedMHAv2', 'TransformerBlockv2', 'RotaryPositionEmbedding',
    'SwiGLU', 'rotate_half', 'apply_rotary_pos_emb', 'HAS_FLASH_ATTN',
    # factory functions
    'make_backbone', 'make_neck', 'make_meta_arch', 'make_generator',
]
