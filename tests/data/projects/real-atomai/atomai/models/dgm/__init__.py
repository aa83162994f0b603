from .vae import BaseVAE, VAE
from .rvae import rVAE
from .jvae import jVAE
from .jrvae import jrVAE

__all__ = ["BaseVAE", "VAE", "rVAE", "jVAE", "jrVAE"]
