"""Main import for GenCast"""

from .denoiser import Denoiser
from .graph.graph_builder import GraphBuilder
from .sampler import Sampler
from .utils.noise import generate_isotropic_noise
from .weighted_mse_loss import WeightedMSELoss
