from .wgan_gp import WGANGPTrainer, CWGANGPTrainer
from .beta_vae import BetaVAETrainer, CBetaVAETrainer
from .ddpm import DDPMTrainer, CDDPMTrainer
from .glow import GlowTrainer, CGlowTrainer