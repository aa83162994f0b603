# Copyright (c) OpenMMLab. All rights reserved.
from ..default import multinomial_sampling, per_channel_quant
from .apply_rotary_pos_emb import apply_rotary_pos_emb, apply_rotary_pos_emb_interleaved
from .awq_kernels import awq_linear
from .fill_kv_cache import fill_kv_cache
from .flash_attention import flash_attention_fwd
from .fused_moe import DlinferMoECommType, DlinferMoeMetadata, fused_moe, fused_moe_w8a8
from .lightning_indexer import lightning_indexer
from .linear import linear
from .moe_gating_topk_softmax import moe_gating_topk_softmax
from .pagedattention import paged_attention_fwd
from .rms_norm import rms_norm
from .sparse_attention import sparse_attention_fwd

__all__ = [
    'rms_norm',
    'apply_rotary_pos_emb',
    'apply_rotary_pos_emb_interleaved',
    'awq_linear',
    'fill_kv_cache',
    'DlinferMoECommType',
    'DlinferMoeMetadata',
    'fused_moe',
    'fused_moe_w8a8',
    'paged_attention_fwd',
    'sparse_attention_fwd',
    'flash_attention_fwd',
    'lightning_indexer',
    'linear',
    'moe_gating_topk_softmax',
    'multinomial_sampling',
    'per_channel_quant',
]
