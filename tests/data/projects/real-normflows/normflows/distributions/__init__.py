from . import (
    base,
    decoder,
    encoder,
    linear_interpolation,
    mh_proposal,
    prior,
    target,
)

from .base import (
    BaseDistribution,
    DiagGaussian,
    ClassCondDiagGaussian,
    GlowBase,
    AffineGaussian,
    GaussianMixture,
    GaussianPCA,
    UniformGaussian,
)
from .target import (
    Target,
    TwoMoons,
    CircularGaussianMixture,
    RingMixture,
    TwoIndependent
)

from .encoder import BaseEncoder, Dirac, Uniform, NNDiagGaussian
from .decoder import BaseDecoder, NNDiagGaussianDecoder, NNBernoulliDecoder
from .prior import (
    PriorDistribution,
    ImagePrior,
    TwoModes,
    Sinusoidal,
    Sinusoidal_split,
    Sinusoidal_gap,
    Smiley,
)

from .mh_proposal import MHProposal, DiagGaussianProposal

from .linear_interpolation import LinearInterpolation
