"""Implementation of a Two Stage VAE sampler as proposed in 
(https://openreview.net/pdf?id=B1e0X3C9tQ).

Available models:
------------------

.. autosummary::
    ~pythae.models.VAE
    ~pythae.models.BetaVAE
    ~pythae.models.VAE_IAF
    ~pythae.models.DisentangledBetaVAE
    ~pythae.models.FactorVAE
    ~pythae.models.BetaTCVAE
    ~pythae.models.IWAE
    ~pythae.models.MSSSIM_VAE
    ~pythae.models.WAE_MMD
    ~pythae.models.INFOVAE_MMD
    ~pythae.models.VAMP
    ~pythae.models.VAEGAN
    ~pythae.models.HVAE
    ~pythae.models.RHVAE
    :nosignatures:

"""

from .two_stage_sampler import TwoStageVAESampler
from .two_stage_sampler_config import TwoStageVAESamplerConfig

__all__ = ["TwoStageVAESampler", "TwoStageVAESamplerConfig"]
