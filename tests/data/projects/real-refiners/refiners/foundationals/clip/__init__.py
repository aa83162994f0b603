from refiners.foundationals.clip.image_encoder import (
    CLIPImageEncoder,
    CLIPImageEncoderG,
    CLIPImageEncoderH,
)
from refiners.foundationals.clip.text_encoder import (
    CLIPTextEncoder,
    CLIPTextEncoderG,
    CLIPTextEncoderH,
    CLIPTextEncoderL,
)

__all__ = [
    "CLIPTextEncoder",
    "CLIPTextEncoderL",
    "CLIPTextEncoderH",
    "CLIPTextEncoderG",
    "CLIPImageEncoder",
    "CLIPImageEncoderG",
    "CLIPImageEncoderH",
]
