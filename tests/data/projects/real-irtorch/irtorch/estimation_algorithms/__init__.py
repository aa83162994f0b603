"""
Estimation algorithms for IRT models.
"""
from .base_irt_algorithm import BaseIRTAlgorithm
from .ae import AE
from .vae import VAE
from .mml import MML
from .jml import JML
