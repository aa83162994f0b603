from .distribution_output import (
    NormalOutput,
    StudentTOutput,
    BetaOutput,
    PoissonOutput,
    ZeroInflatedPoissonOutput,
    PiecewiseLinearOutput,
    NegativeBinomialOutput,
    ZeroInflatedNegativeBinomialOutput,
    NormalMixtureOutput,
    StudentTMixtureOutput,
    IndependentNormalOutput,
    LowRankMultivariateNormalOutput,
    MultivariateNormalOutput,
    FlowOutput,
    DiffusionOutput,
    ImplicitQuantileOutput,
)
from .feature import FeatureEmbedder, FeatureAssembler
from .flows import RealNVP, MAF
from .scaler import MeanScaler, NOPScaler
from .gaussian_diffusion import GaussianDiffusion
