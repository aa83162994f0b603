from .fast_attn_state import (
    get_fast_attn_state,
    get_fast_attn_enable,
    get_fast_attn_step,
    get_fast_attn_calib,
    get_fast_attn_threshold,
    get_fast_attn_window_size,
    get_fast_attn_coco_path,
    get_fast_attn_use_cache,
    get_fast_attn_config_file,
    get_fast_attn_layer_name,
    initialize_fast_attn_state,
)

from .attn_layer import (
    FastAttnMethod,
    xFuserFastAttention,
)

from .utils import fast_attention_compression

__all__ = [
    "get_fast_attn_state",
    "get_fast_attn_enable",
    "get_fast_attn_step",
    "get_fast_attn_calib",
    "get_fast_attn_threshold",
    "get_fast_attn_window_size",
    "get_fast_attn_coco_path",
    "get_fast_attn_use_cache",
    "get_fast_attn_config_file",
    "get_fast_attn_layer_name",
    "initialize_fast_attn_state",
    "xFuserFastAttention",
    "FastAttnMethod",
    "fast_attention_compression",
]
