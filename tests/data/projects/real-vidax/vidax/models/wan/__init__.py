# Wan model family: one subpackage per released architecture version
# (`wan2_1`, `wan2_2`, ...), since each version's DiT/VAE differ enough to
# need their own modules -- see `common/` for the building blocks (T5 text
# encoder, shared attention/VAE layers) that are byte-for-byte identical
# across versions and so live once.
from .common import T5Encoder, Umt5Tokenizer
from .wan2_1 import (
    WanDiT, WanVAEDecoder, WanVAEEncoder, ClipVisionTransformer, preprocess_image_for_clip,
)

__all__ = [
    "T5Encoder", "Umt5Tokenizer",
    "WanDiT", "WanVAEDecoder", "WanVAEEncoder",
    "ClipVisionTransformer", "preprocess_image_for_clip",
]
