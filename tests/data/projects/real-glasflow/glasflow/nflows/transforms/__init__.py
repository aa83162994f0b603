from .autoregressive import (
    MaskedAffineAutoregressiveTransform,
    MaskedPiecewiseCubicAutoregressiveTransform,
    MaskedPiecewiseLinearAutoregressiveTransform,
    MaskedPiecewiseQuadraticAutoregressiveTransform,
    MaskedPiecewiseRationalQuadraticAutoregressiveTransform,
)
from .base import (
    CompositeTransform,
    InputOutsideDomain,
    InverseNotAvailable,
    InverseTransform,
    MultiscaleCompositeTransform,
    Transform,
)
from .conv import OneByOneConvolution
from .coupling import (
    AdditiveCouplingTransform,
    AffineCouplingTransform,
    PiecewiseCubicCouplingTransform,
    PiecewiseLinearCouplingTransform,
    PiecewiseQuadraticCouplingTransform,
    PiecewiseRationalQuadraticCouplingTransform,
)
from .linear import NaiveLinear
from .lu import LULinear
from .nonlinearities import (
    CompositeCDFTransform,
    GatedLinearUnit,
    LeakyReLU,
    Logit,
    LogTanh,
    PiecewiseCubicCDF,
    PiecewiseLinearCDF,
    PiecewiseQuadraticCDF,
    PiecewiseRationalQuadraticCDF,
    Sigmoid,
    Tanh,
)
from .normalization import ActNorm, BatchNorm
from .orthogonal import HouseholderSequence
from .permutations import (
    Permutation,
    RandomPermutation,
    ReversePermutation,
)
from .qr import QRLinear
from .reshape import SqueezeTransform
from .standard import (
    AffineScalarTransform,
    AffineTransform,
    IdentityTransform,
    PointwiseAffineTransform,
)
from .svd import SVDLinear
