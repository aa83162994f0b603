from .dit import WanDiT
from .vae import WanVAEDecoder, WanVAEEncoder
from .clip_vision import ClipVisionTransformer, preprocess_image_for_clip

__all__ = [
    "WanDiT", "WanVAEDecoder", "WanVAEEncoder",
    "ClipVisionTransformer", "preprocess_image_for_clip",
]
