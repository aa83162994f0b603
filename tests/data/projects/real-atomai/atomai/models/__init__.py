from .segmentor import Segmentor
from .imspec import ImSpec
from .regressor import Regressor
from .classifier import Classifier
from .denoiser import DenoisingAutoencoder, denoise_images
from .dgm import BaseVAE, VAE, rVAE, jVAE, jrVAE
from .sam import ParticleAnalyzer
from .dklgp import dklGPR, Reconstructor
from .loaders import load_model, load_ensemble, load_pretrained_model

__all__ = ["Segmentor", "ImSpec", "BaseVAE", "VAE", "rVAE",
           "jVAE", "jrVAE", "load_model", "load_ensemble",
           "load_pretrained_model", "dklGPR", "Regressor",
           "Classifier", "Reconstructor", "DenoisingAutoencoder",
           "denoise_images"]