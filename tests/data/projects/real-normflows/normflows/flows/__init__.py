from .base import Flow, Reverse, Composite

from .reshape import Merge, Split, Squeeze
from .mixing import Permute, InvertibleAffine, Invertible1x1Conv, LULinearPermute
from .periodic import PeriodicWrap, PeriodicShift

from .planar import Planar
from .radial import Radial

from . import affine
from .affine.coupling import (
    AffineConstFlow,
    CCAffineConst,
    AffineCoupling,
    MaskedAffineFlow,
    AffineCouplingBlock,
)
from .affine.glow import GlowBlock
from .affine.autoregressive import MaskedAffineAutoregressive

from .normalization import BatchNorm, ActNorm

from .residual import Residual

from . import neural_spline
from .neural_spline import (
    CoupledRationalQuadraticSpline,
    AutoregressiveRationalQuadraticSpline,
    CircularCoupledRationalQuadraticSpline,
    CircularAutoregressiveRationalQuadraticSpline,
)

from .stochastic import MetropolisHastings, HamiltonianMonteCarlo

from . import (
    base,
    mixing,
    normalization,
    periodic,
    planar,
    radial,
    reshape,
    residual,
    stochastic,
)
