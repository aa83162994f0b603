"""VAE encode-ahead for the online latent cache."""

from kohakumoss.training.vae.ahead import LatentAhead

__all__ = ["LatentAhead"]
