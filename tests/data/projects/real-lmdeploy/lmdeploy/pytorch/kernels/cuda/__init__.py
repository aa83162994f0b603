# Copyright (c) OpenMMLab. All rights reserved.
from ..default.w8a8_kernels import per_channel_quant
from .apply_rotary_pos_emb import apply_rotary_pos_emb
from .fill_kv_cache import fill_kv_cache
from .flashattention import flash_attn_varlen_func
from .flatten_kv_cache import flatten_kv_cache
from .moe.fused_moe import fused_moe
from .moe.w8a8 import fused_moe_w8a8
from .multinomial_sampling import multinomial_sampling
from .pagedattention import flash_attn_with_kvcache
from .rms_norm import rms_norm
from .w8a8_triton_kernels import matmul_kernel_dynamic_quant, per_token_quant_int8, rms_norm_dynamic_quant

__all__ = [
    'apply_rotary_pos_emb',
    'fused_moe',
    'flash_attn_with_kvcache',
    'fill_kv_cache',
    'multinomial_sampling',
    'rms_norm',
    'matmul_kernel_dynamic_quant',
    'per_channel_quant',
    'per_token_quant_int8',
    'rms_norm_dynamic_quant',
    'flash_attn_varlen_func',
    'flatten_kv_cache',
    'fused_moe_w8a8',
]
