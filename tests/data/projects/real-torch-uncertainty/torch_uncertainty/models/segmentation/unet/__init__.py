# ruff: noqa: F401
from .batched import batched_small_unet, batched_unet
from .masked import masked_small_unet, masked_unet
from .mimo import mimo_small_unet, mimo_unet
from .packed import packed_small_unet, packed_unet
from .standard import small_unet, unet
