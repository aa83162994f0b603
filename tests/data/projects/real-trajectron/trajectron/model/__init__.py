from .trajectron import Trajectron
from .mgcvae import MultimodalGenerativeCVAE
