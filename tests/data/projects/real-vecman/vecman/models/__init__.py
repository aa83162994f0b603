"""VECMAN VQ-VAE model implementations."""

from .vqvae import VQVAE, VectorQuantizer, Encoder, Decoder

__all__ = [
    "VQVAE",
    "VectorQuantizer", 
    "Encoder",
    "Decoder"
] 