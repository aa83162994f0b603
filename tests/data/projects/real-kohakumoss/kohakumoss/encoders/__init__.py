"""Frozen encoders: FLUX.2 VAE (latents) and Qwen3.5 text encoder (prompt features)."""

from kohakumoss.encoders.text import QwenTextEncoder, text_encoder
from kohakumoss.encoders.vae import FluxVae, vae_encoder

__all__ = ["FluxVae", "QwenTextEncoder", "text_encoder", "vae_encoder"]
