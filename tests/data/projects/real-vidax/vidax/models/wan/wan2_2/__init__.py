from .dit import WanDiT
from .vae import WanVAEDecoder, WanVAEEncoder

__all__ = ["WanDiT", "WanVAEDecoder", "WanVAEEncoder"]
