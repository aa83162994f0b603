from .converter import convert_pt_tensor_to_jax
from .mappings import (
    load_torch_checkpoint_to_jax,
    map_wan_dit_keys,
    map_wan_t5_keys,
    map_wan2_1_dit_keys,
    map_wan2_1_vae_keys,
    map_wan2_1_clip_keys,
    map_wan2_2_vae_keys,
)

__all__ = [
    "convert_pt_tensor_to_jax",
    "load_torch_checkpoint_to_jax",
    "map_wan_dit_keys",
    "map_wan_t5_keys",
    "map_wan2_1_dit_keys",
    "map_wan2_1_vae_keys",
    "map_wan2_1_clip_keys",
    "map_wan2_2_vae_keys",
]
