"""Latent and text-embedding caches on KohakuVault, keyed by content."""

from kohakumoss_data.cache.keys import latent_key, text_key
from kohakumoss_data.cache.store import TensorStore, decode_tensor, encode_tensor
from kohakumoss_data.cache.tensor_cache import LatentCache, TextCache

__all__ = [
    "LatentCache",
    "TensorStore",
    "TextCache",
    "decode_tensor",
    "encode_tensor",
    "latent_key",
    "text_key",
]
